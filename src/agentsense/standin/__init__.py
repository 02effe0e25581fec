"""The stand-in provider and the OpenAI-compatible stub server: for smoke runs and tests,
imported only when a `standin/` model or the stub is asked for."""
