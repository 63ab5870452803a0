"""Burns CPU forever; RLIMIT_CPU must stop it."""
import sys

sys.stdout.write("ready\n")
sys.stdout.flush()
n = 0
while True:
    n += 1
