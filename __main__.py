import sys

from synsema.cli.entry import main

sys.exit(main())
