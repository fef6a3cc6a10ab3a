"""Output formats: pure functions from events or the diagnosis to text, called by ``commands/``."""
