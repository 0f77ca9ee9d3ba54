"""``python -m loadtest``: :func:`loadtest.run.main`."""

from loadtest.run import main

raise SystemExit(main())
