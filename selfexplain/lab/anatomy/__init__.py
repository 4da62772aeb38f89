"""Looking inside the encoder: attention statistics, head clustering, the no-op gradient test,
the confusion score, probing classifiers by layer and perturbed inputs."""
