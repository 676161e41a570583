#!/bin/sh
# Debian's Chromium inside the emulated link's client namespace (tests/support/wan-link.ts): a
# Playwright executablePath. Playwright talks to the browser over a pipe (inherited file
# descriptors), so it needs no network path to it; every request the pages make leaves through wl-cli.
exec ip netns exec wl-cli /usr/bin/chromium "$@"
