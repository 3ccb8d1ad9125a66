from gitmem.cli import main

raise SystemExit(main())
