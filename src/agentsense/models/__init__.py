"""Model providers and reply rules that ship with the project (no network, no API key)."""
