"""CoSER's Given-Circumstance Acting (GCA): dataset, simulation, critics, scores."""
