"""What the server keeps: the SQL store, its models and migrations, backups."""
