# simsets.sh — sourced by the sharding tests: sim_sets BIN DIR COUNT writes COUNT capture sets
# into DIR from `iopsy simulate` (short captures, scenarios in turn, each its own seed): one
# before/after pair, one broken set (a capture cut in its header) and two names that sanitise
# alike ("dup set" and "dup_set": keys dup_set-b08b0d62 and dup_set, which every shard must agree on).
SIM_SCENARIOS="healthy lsi-guest-queue-cap device-queue-overcommit backend-saturated adaptive-queue-depth
dsnro-cap misaligned-partition sioc-throttle adapter-overcommit split-io log-disk-slow nfs-datastore"

sim_sets() {
	_bin=$1 _dir=$2 _count=$3 _i=0
	mkdir -p "$_dir"
	while [ "$_i" -lt "$_count" ]; do
		_n=$(printf '%02d' "$_i")
		case $_i in
		3) _sc=migration _name="$_n-migration" ;;
		7) _name="$_n-broken"
			mkdir -p "$_dir/$_name"
			printf '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01\\Physical Disk SCSI Device(naa.1)\\Commands/sec",\n"07/27/2026 13:00:00","1' \
				>"$_dir/$_name/esxtop.csv"
			_i=$((_i + 1)); continue ;;
		8) _sc=healthy _name="dup set" ;;
		9) _sc=healthy _name="dup_set" ;;
		*) set -- $SIM_SCENARIOS
			_k=$((_i % $#)); shift "$_k"; _sc=$1 _name="$_n-$_sc" ;;
		esac
		"$_bin" simulate --scenario "$_sc" --out "$_dir/$_name" --seed $((_i + 1)) --duration 600 --interval 5 \
			--gzip >/dev/null 2>&1 || echo "simsets: simulate $_sc failed" >&2
		_i=$((_i + 1))
	done
}
