"""`python -m finrag.cli ...` (app/cli/__main__.py): the same as the `finrag` command."""
import sys

from finrag.cli import main

sys.exit(main())
