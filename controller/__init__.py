"""The station at the table: the drop cycle, the game session, its records, the CLI and the web page."""
