#!/usr/bin/env bash
# Makes the certificates a TLS cluster needs, with openssl, into DIR (created; files already there
# are kept, so the CAs survive a second run that adds node certificates):
#   ca.pem, ca-key.pem                  the cluster's CA: it signs node certificates only
#   node-HOST.pem, node-HOST-key.pem    one per HOST given (default 127.0.0.1): serves the API and
#                                       proves the node to its peers (mutual TLS)
#   clients-ca.pem, clients-ca-key.pem  a CA for client certificates (tls.clientCaFile)
#   client.pem, client-key.pem          a client certificate from it
# Keys are EC P-256 in PKCS#8 PEM. DAYS sets the validity of new certificates (default 825).
# Usage: scripts/make-certs.sh DIR [HOST ...]
#   e.g. scripts/make-certs.sh conf/tls 127.0.0.1
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [HOST ...]" >&2
  exit 2
fi
dir=$1
shift
hosts=("$@")
[ ${#hosts[@]} -gt 0 ] || hosts=(127.0.0.1)
days=${DAYS:-825}
command -v openssl >/dev/null || { echo "$0: openssl is not installed" >&2; exit 1; }
mkdir -p "$dir"
umask 077

new_key() {
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
}

# A self-signed CA, unless one is already there.
make_ca() {
  local name=$1 subject=$2
  if [ -s "$dir/$name.pem" ] && [ -s "$dir/$name-key.pem" ]; then
    return
  fi
  new_key "$dir/$name-key.pem"
  openssl req -x509 -new -key "$dir/$name-key.pem" -subj "/CN=$subject" -days "$days" -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$dir/$name.pem"
  echo "made $dir/$name.pem"
}

# A leaf certificate signed by CA: sign NAME CA SUBJECT EXTENSIONS
sign() {
  local name=$1 ca=$2 subject=$3 extensions=$4
  local ext_file
  ext_file=$(mktemp)
  printf '%s\n' "$extensions" >"$ext_file"
  new_key "$dir/$name-key.pem"
  openssl req -new -key "$dir/$name-key.pem" -subj "/CN=$subject" -out "$dir/$name.csr"
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.pem" -CAkey "$dir/$ca-key.pem" -CAcreateserial \
    -days "$days" -sha256 -extfile "$ext_file" -out "$dir/$name.pem" 2>/dev/null
  rm -f "$dir/$name.csr" "$ext_file"
  echo "made $dir/$name.pem"
}

make_ca ca "quorumkv cluster CA"
make_ca clients-ca "quorumkv clients CA"
for host in "${hosts[@]}"; do
  if [[ $host =~ ^[0-9.]+$|: ]]; then
    san="IP:$host"
  else
    san="DNS:$host"
  fi
  [ "$host" = 127.0.0.1 ] && san="$san,DNS:localhost"
  sign "node-$host" ca "quorumkv node $host" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=$san"
done
sign client clients-ca "quorumkv client" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"
rm -f "$dir"/*.srl
