"""What players share beyond a game: accounts, ratings, results, players, the daily challenge,
puzzles, analyses."""
