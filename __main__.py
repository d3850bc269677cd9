from synsema.cli.entry import script

script()
