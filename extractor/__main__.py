"""`python -m extractor`: the command line, where the `extractor` script is not on the PATH."""

import sys

from extractor.cli import main

sys.exit(main())
