from dpviz.cli import main

raise SystemExit(main())
