"""Allocates memory without bound until the address-space limit stops it."""
hoard = []
while True:
    hoard.append(bytearray(32 * 1024 * 1024))
