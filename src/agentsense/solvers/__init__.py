from .simulation import simulation

__all__ = ["simulation"]
