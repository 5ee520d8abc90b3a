"""What keeps a server process running: its worker processes and work queue, the bus between
processes, metrics, logs, the collector."""
