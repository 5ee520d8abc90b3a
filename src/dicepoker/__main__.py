"""`python -m dicepoker`: the same command line as `dicepoker`."""

from dicepoker.cli import app

if __name__ == "__main__":  # a process spawned by `serve` imports this module without running it
    app(prog_name="dicepoker")
