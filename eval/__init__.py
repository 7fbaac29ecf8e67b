"""finrag.eval = the folder `eval/`: datasets, judges (`eval/judges/`), metrics, reports and the `finrag eval` runner."""
