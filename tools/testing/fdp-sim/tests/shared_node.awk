# SPDX-License-Identifier: GPL-2.0
#
# A synthetic shared node for fdp-sim, every write on one stream (no
# placement): awk -v pages=N -v dw=D -f shared_node.awk > TRACE
#
# Of the N-page disk, 15% holds tables of 64 pages written whole and
# deleted (discarded) at random, 65% pages updated at random (30% of the
# updates to a tenth of them), 8% cold data written once, 2% a circular
# log; about 90% full.  After loading the tables, updates and cold data,
# D drive writes of host pages: 10% log, 20% tables, 70% updates.
BEGIN {
	srand(11)
	tabf = 64
	logp = int(pages * 0.02)
	ntab = int(pages * 0.15 / tabf)
	nslots = int(ntab * 1.25)	# table space: room for new tables
	upd = int(pages * 0.65)
	hot = int(upd / 10)
	cold = int(pages * 0.08)
	tabbase = logp
	updbase = tabbase + nslots * tabf
	coldbase = updbase + upd
	for (i = 0; i < cold; i++)
		w(coldbase + i)
	for (i = 0; i < upd; i++)
		w(updbase + i)
	for (f = 0; f < ntab; f++) {
		used[f] = 1
		for (i = 0; i < tabf; i++)
			w(tabbase + f * tabf + i)
	}
	live = ntab
	lp = 0
	for (k = 0; k < dw * pages; ) {
		r = rand()
		if (r < 0.1) {
			w(lp)
			lp = (lp + 1) % logp
			k++
		} else if (r < 0.3) {
			# a table is 64 pages: one in 64 draws writes one
			if (rand() * tabf >= 1)
				continue
			for (s = int(rand() * nslots); used[s]; s = (s + 1) % nslots)
				;
			used[s] = 1
			for (i = 0; i < tabf; i++)
				w(tabbase + s * tabf + i)
			k += tabf
			# and a table chosen at random is deleted
			for (s = int(rand() * nslots); !used[s]; s = (s + 1) % nslots)
				;
			used[s] = 0
			print t / 1e6, "259,0 D", (tabbase + s * tabf) * 8, tabf * 8, 0, "none 0"
			t++
		} else {
			p = rand() < 0.3 ? int(rand() * hot) : hot + int(rand() * (upd - hot))
			w(updbase + p)
			k++
		}
	}
}

function w(p) {
	print t / 1e6, "259,0 W", p * 8, 8, 1, "default 1"
	t++
}
