# pgtmp.sh — a throwaway PostgreSQL cluster for the tests, sourced by tests/pg.sh and
# tests/slurm.sh. pg_start makes it with Debian's initdb and pg_ctl (postgresql package) in a
# temporary folder, with no TCP listener (its socket is in that folder) and SCRAM passwords:
# iopsy connects as the user iopsy with its password in a PGPASSFILE, the libpq way. initdb and
# the server refuse to run as root, so as root (CI) they run as the system user nobody (runuser
# or setpriv); otherwise as the current user.
#   pg_start            0 and PG_DIR, PGPASSFILE (exported), PG_BIN set; 1 when PostgreSQL or a
#                       way to drop root is missing (PG_WHY says which)
#   pg_uri DB           the URI of database DB (made with pg_createdb DB)
#   pg_psql DB ARGS...  psql on DB as iopsy
#   pg_stop             stops the server and removes the folder
PG_DIR=
PG_BIN=
PG_WHY=

pg_find() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then PG_BIN=$d; return 0; fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		PG_BIN=$(dirname "$(command -v initdb)"); return 0
	fi
	PG_WHY="PostgreSQL's initdb and pg_ctl are not installed (Debian: apt-get install postgresql)"
	return 1
}

# runs its arguments as the cluster's owner
pg_as() {
	if [ "$(id -u)" -ne 0 ]; then "$@"
	elif command -v runuser >/dev/null 2>&1; then runuser -u nobody -- "$@"
	else setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
	fi
}

pg_start() {
	pg_find || return 1
	if [ "$(id -u)" -eq 0 ] && ! command -v runuser >/dev/null 2>&1 && ! command -v setpriv >/dev/null 2>&1; then
		PG_WHY="running as root without runuser or setpriv to start PostgreSQL as an unprivileged user"
		return 1
	fi
	PG_DIR=$(mktemp -d /tmp/iopsy-pg-XXXXXX) || return 1
	chmod 755 "$PG_DIR"
	[ "$(id -u)" -eq 0 ] && chown nobody "$PG_DIR"
	printf 'iopsy-test-%s\n' "$$" >"$PG_DIR/pw"
	[ "$(id -u)" -eq 0 ] && chown nobody "$PG_DIR/pw"
	if ! pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U iopsy --auth-local=scram-sha-256 --auth-host=reject \
		--pwfile="$PG_DIR/pw" -E UTF8 --no-locale >"$PG_DIR/initdb.log" 2>&1; then
		PG_WHY="initdb failed: $(tail -3 "$PG_DIR/initdb.log" | tr '\n' ' ')"
		return 1
	fi
	if ! pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -c unix_socket_directories=$PG_DIR -c fsync=off -c max_connections=60" \
		start >/dev/null 2>&1; then
		PG_WHY="the server did not start: $(tail -3 "$PG_DIR/server.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	# the password the libpq way: a pgpass file (host field = the socket folder), mode 0600
	printf '%s:*:*:iopsy:%s\n' "$PG_DIR" "$(cat "$PG_DIR/pw")" >"$PG_DIR/pgpass"
	chmod 600 "$PG_DIR/pgpass"
	PGPASSFILE=$PG_DIR/pgpass
	export PGPASSFILE
	return 0
}

pg_uri() { printf 'postgresql:///%s?host=%s&user=iopsy' "$1" "$PG_DIR"; }

pg_psql() {
	db=$1; shift
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$(pg_uri "$db")" "$@"
}

pg_createdb() { pg_psql postgres -c "CREATE DATABASE \"$1\"" >/dev/null; }

pg_stop() {
	[ -n "$PG_DIR" ] || return 0
	[ -d "$PG_DIR/data" ] && pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$PG_DIR"
	PG_DIR=
}
