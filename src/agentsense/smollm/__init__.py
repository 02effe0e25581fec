"""SmolLM2-135M-Instruct from a PyPI wheel, run on the CPU: the README's offline real model."""
