#!/usr/bin/env bash
# Builds the DocC catalog of the Quarry target through swift-docc-plugin, in
# its own scratch folder (.build-docc), and fails on any warning: broken or
# ambiguous symbol links, undocumented parameters, missing articles.
#
#     bash scripts/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift package --scratch-path .build-docc --disable-sandbox \
    generate-documentation --target Quarry --target QuarryPostgres --warnings-as-errors
echo "docs: the DocC catalogs (Quarry, QuarryPostgres) build without warnings"
