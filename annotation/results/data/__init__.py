"""Files the results concern ships as they are: the checklist of the paper kit, its bibliography, and the
release bundle's reproduce.py and reproduce.sh (copied into every bundle; reproduce.py runs there, beside
the bundled scorer)."""
