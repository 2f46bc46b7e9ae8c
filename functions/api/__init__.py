"""AWS Lambda entry point of the perturber service (AWS glue only)."""
