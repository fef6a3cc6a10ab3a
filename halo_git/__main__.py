"""``python -m halo_git``: the same as the ``halo-git`` command."""

import sys

from .cli import main

sys.exit(main())
