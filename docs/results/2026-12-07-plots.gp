set terminal pngcairo size 900,500 noenhanced
set output '2026-12-07-6.12-offload.png'
set title 'Linux 6.12, GPU-offload client under icount: client frames per guest second, one point per boot'
set ylabel '% against the median of base'
set xrange [-0.5:3.5]
set xtics ('base, explicit sync' 0, 'patched, explicit sync' 1, 'base, no sync' 2, 'patched, no sync' 3)
set grid ytics
set key off
plot '2026-12-07-data/6.12/offload.dat' using 1:2 with points pt 7 ps 1.2
unset xrange
set autoscale x
set xtics autofreq
set key default
set terminal pngcairo size 1400,600 noenhanced
set output '2026-12-07-6.12-micro.png'
set title 'Linux 6.12, syncobj ioctls under icount: instructions per call (median)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -60 font ',8'
set logscale y
set ylabel 'instructions per call'
set grid ytics
plot '2026-12-07-data/6.12/micro-icount.dat' using 2:xtic(1) title 'base', '' using 3 title 'patched'
unset logscale y
unset style
set xtics norotate font ''
set terminal pngcairo size 900,500 noenhanced
set output '2026-12-07-7.3-offload.png'
set title 'Linux 7.3, GPU-offload client under icount: client frames per guest second, one point per boot'
set ylabel '% against the median of base'
set xrange [-0.5:3.5]
set xtics ('base, explicit sync' 0, 'patched, explicit sync' 1, 'base, no sync' 2, 'patched, no sync' 3)
set grid ytics
set key off
plot '2026-12-07-data/7.3/offload.dat' using 1:2 with points pt 7 ps 1.2
unset xrange
set autoscale x
set xtics autofreq
set key default
set terminal pngcairo size 1400,600 noenhanced
set output '2026-12-07-7.3-micro.png'
set title 'Linux 7.3, syncobj ioctls under icount: instructions per call (median)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -60 font ',8'
set logscale y
set ylabel 'instructions per call'
set grid ytics
plot '2026-12-07-data/7.3/micro-icount.dat' using 2:xtic(1) title 'base', '' using 3 title 'patched'
unset logscale y
unset style
set xtics norotate font ''
set terminal pngcairo size 1000,520 noenhanced
set output '2026-12-07-result.png'
set title 'GPU-offload client under icount: client frames per guest second, one point per boot'
set ylabel '% against the base median of its sync mode'
set xrange [-0.5:7.5]
set xtics rotate by -30 font ',9' ('6.12 base, explicit' 0, '6.12 patched, explicit' 1, '6.12 base, no sync' 2, '6.12 patched, no sync' 3, '7.3 base, explicit' 4, '7.3 patched, explicit' 5, '7.3 base, no sync' 6, '7.3 patched, no sync' 7)
set grid ytics
set key below
plot '2026-12-07-data/6.12/offload.dat' using ($1+0):2 with points pt 7 ps 1.2 title 'Linux 6.12', '2026-12-07-data/7.3/offload.dat' using ($1+4):2 with points pt 5 ps 1.2 title 'Linux 7.3'
unset xrange
set autoscale x
set xtics norotate autofreq font ''
set key default
