# Draws a `buzz-load soak --csv FILE` run: the relay's RSS, the store's two
# bounded memory pools, RSS beyond them (what the target checks), the live heap
# beyond them, and the CPU over time.
#   gnuplot -e "csv='soak.csv'; png='docs/soak.png'" tools/load/soak.gp
# (Debian: apt-get install gnuplot-nox; only needed to redraw the figure.)
set datafile separator ','
set terminal png size 1000,420 font ',10'
set output png
set title 'buzz-load soak: relay RSS, the store''s bounded pools, what is beyond them, and CPU, one sample a second'
set xlabel 'seconds'
set ylabel 'MiB'
set y2label 'CPU (% of one core)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key top left
set grid
plot csv using 1:2 skip 1 with lines lw 2 title 'RSS', \
     csv using 1:7 skip 1 with lines title 'block cache (bound 256 MiB)', \
     csv using 1:8 skip 1 with lines title 'memtables (bound 64 MiB)', \
     csv using 1:($2-$7-$8) skip 1 with lines lw 2 title 'RSS beyond the two pools (the target: flat)', \
     csv using 1:($9-$7-$8) skip 1 with lines title 'live heap beyond the two pools (malloc''s allocated)', \
     csv using 1:3 skip 1 axes x1y2 with lines lc rgb '#bbbbbb' title 'CPU'
