from scanner.cli import main

raise SystemExit(main())
