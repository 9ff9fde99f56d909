#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): which inline size
# catches what. A fixed workload per NFS version (3, 4.1, 4.2): fio 4 KiB
# QD1 randwrite and randread, then a metadata mix in a 1000-entry
# directory (create, stat, readdir, rename, small appends, remove). With
# inline_size=512 (rxe's largest), each side's Sends are tabulated from
# debugfs 'sends' by how they went (inline, or why by reference) and size,
# with the share of all Sends that would go inline at 128, 256, 512 and
# 1024 bytes: those posted inline or too large, up to that size ('sends'
# counts per side since rpcrdma loaded: each table is the growth over
# one version's mount). The numbers are logged for the README; checked is
# only that the table adds up to the connection's counts and that the
# shares grow with the size.

SIZES_FILES=${SIZES_FILES:-1000}
SIZES_IOS=${SIZES_IOS:-2000}

# The growth of the sends lines of SIDE since the copy BASE, as
# "how le64 ... gt1024" rows, added to the table file TABLE
sizes_collect() {
	local side=$1 table=$2 base=$3
	awk -v side="$side" -v base="$base" '$1 == side {
		sign = FILENAME == base ? -1 : 1
		how = ""; for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "how") how = kv[2]
			else if (kv[1] ~ /^(le|gt)[0-9]+$/) n[how, kv[1]] += sign * kv[2]
		}
	} END {
		split("inline off chunks chained pages unpulled large sge", hows, " ")
		for (h = 1; h <= 8; h++)
			print hows[h], n[hows[h], "le64"] + 0, n[hows[h], "le128"] + 0, n[hows[h], "le256"] + 0,
				n[hows[h], "le512"] + 0, n[hows[h], "le1024"] + 0, n[hows[h], "gt1024"] + 0
	}' "$base" "$SENDS" >>"$table"
}

# Print TABLE (rows summed by how) as Markdown, with the shares
sizes_print() {
	local title=$1 table=$2
	awk -v title="$title" '{
		for (c = 2; c <= 7; c++) { t[$1, c] += $c; tot += $c; col[c] += $c }
		rows[$1] = 1
	} END {
		print "# sizes: " title
		print "# sizes: | how | <=64 | <=128 | <=256 | <=512 | <=1024 | >1024 | all |"
		print "# sizes: |---|---:|---:|---:|---:|---:|---:|---:|"
		split("inline off chunks chained pages unpulled large sge", hows, " ")
		for (h = 1; h <= 8; h++) {
			s = 0; line = ""
			for (c = 2; c <= 7; c++) { line = line " | " t[hows[h], c]; s += t[hows[h], c] }
			print "# sizes: | " hows[h] line " | " s " |"
		}
		line = ""
		for (c = 2; c <= 7; c++) line = line " | " col[c]
		print "# sizes: | all" line " | " tot " |"
		cand = 0; shares = ""
		for (c = 2; c <= 6; c++) {
			cand += t["inline", c] + t["large", c]
			if (c >= 3) shares = shares sprintf(" %d: %.1f%%", 64 * 2 ^ (c - 2), tot ? 100 * cand / tot : 0)
		}
		print "# sizes: " title ": share of all Sends inline at" shares
	}' "$table"
}

# The metadata mix in DIR
sizes_metadata() {
	local dir=$1
	mkdir "$dir/meta"
	perl -e 'for my $i (1 .. $ARGV[1]) { open(my $f, ">", "$ARGV[0]/f$i") or die; close($f) }' "$dir/meta" "$SIZES_FILES"
	perl -e 'for my $i (1 .. $ARGV[1]) { my @s = stat("$ARGV[0]/f$i") or die }' "$dir/meta" "$SIZES_FILES"
	ls -l "$dir/meta" >/dev/null
	perl -e 'for my $i (1 .. $ARGV[1]) { rename("$ARGV[0]/f$i", "$ARGV[0]/g$i") or die }' "$dir/meta" "$SIZES_FILES"
	perl -e 'for my $i (1 .. $ARGV[1] / 10) { open(my $f, ">>", "$ARGV[0]/g$i") or die; print $f "x" x 100; close($f) }' "$dir/meta" "$SIZES_FILES"
	rm -rf "$dir/meta"
}

if ! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null; then
	nfs_server_start /export
fi
sz_old=$(cat /sys/module/rpcrdma/parameters/inline_size)
echo 512 >/sys/module/rpcrdma/parameters/inline_size
rm -f /tmp/sizes-server /tmp/sizes-client
for vers in 3 4.1 4.2; do
	cp "$SENDS" /tmp/sends-base
	declare -A sz=([server]="$(side_sends server)" [client]="$(side_sends client)")
	nfs_mount "$vers" /mnt
	for rw in randwrite randread; do
		fio --name="sizes-$rw" --directory=/mnt --size=16m --bs=4k --ioengine=psync \
			--iodepth=1 --direct=1 --rw="$rw" --io_size=$((SIZES_IOS * 4))k \
			--output=/dev/null || check "sizes: vers=$vers fio $rw" false
	done
	sizes_metadata /mnt
	rm -f /mnt/sizes-*
	rm -f "/tmp/sizes-$vers-server" "/tmp/sizes-$vers-client"
	for side in server client; do
		check "sizes: vers=$vers $side: the table adds up to the connection's Sends" \
			sizes_agree "$side" "${sz[$side]}"
		sizes_collect "$side" "/tmp/sizes-$vers-$side" /tmp/sends-base
		sizes_collect "$side" "/tmp/sizes-$side" /tmp/sends-base
		sizes_print "vers=$vers $side" "/tmp/sizes-$vers-$side"
	done
	nfs_umount /mnt
	conns_gone || true
done
for side in server client; do
	sizes_print "all versions, $side" "/tmp/sizes-$side" | tee "/tmp/sizes-$side.md"
	# shellcheck disable=SC2016 # awk's program
	check "sizes: $side: the share inline grows with the size" \
		awk '/share of all Sends/ { p = -1; for (i = 1; i <= NF; i++) if ($i ~ /%$/) { v = $i + 0; if (v < p) exit 1; p = v } }' \
		"/tmp/sizes-$side.md"
done
echo "$sz_old" >/sys/module/rpcrdma/parameters/inline_size
