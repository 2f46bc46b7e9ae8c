"""One module per family. Each declares its entries with ``perturber.registry.perturbation``."""
