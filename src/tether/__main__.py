"""``python -m tether`` runs the CLI."""

from .cli import main

main()
