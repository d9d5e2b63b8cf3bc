"""The play server: people play a seat in the browser (`arena play-server`, docs/play.md)."""
