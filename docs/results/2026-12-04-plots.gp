set terminal pngcairo size 900,500 noenhanced
set output '2026-12-04-offload.png'
set title 'GPU-offload client under icount: client frames per guest second, one point per boot'
set ylabel '% against the median of base'
set xrange [-0.5:3.5]
set xtics ('base, explicit sync' 0, 'patched, explicit sync' 1, 'base, no sync' 2, 'patched, no sync' 3)
set grid ytics
set key off
plot '2026-12-04-data/offload.dat' using 1:2 with points pt 7 ps 1.2
unset xrange
set autoscale x
set xtics autofreq
set key default
set terminal pngcairo size 1400,600 noenhanced
set output '2026-12-04-micro.png'
set title 'syncobj ioctls under icount: instructions per call (median)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -60 font ',8'
set logscale y
set ylabel 'instructions per call'
set grid ytics
plot '2026-12-04-data/micro-icount.dat' using 2:xtic(1) title 'base', '' using 3 title 'patched'
unset logscale y
unset style
set xtics norotate font ''
set terminal pngcairo size 900,500 noenhanced
set output '2026-12-04-fps.png'
set title 'output FPS per 5 s window'
set ylabel 'FPS'
set xrange [-0.5:1.5]
set xtics ('base' 0, 'patched' 1)
set style fill empty
set grid ytics
set style data points
plot '2026-12-04-data/fps-base.txt' using (0+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'base', '2026-12-04-data/fps-patched.txt' using (1+0.15*(rand(0)-0.5)):1 with points pt 7 ps 0.8 title 'patched'
unset xrange
set autoscale x
set xtics autofreq
set output '2026-12-04-frametime.png'
set title 'frame intervals (all frames after warm-up)'
set xlabel 'interval (ms)'
set ylabel 'fraction of frames'
bw=0.5
bin(x)=bw*floor(x/bw)+bw/2
set xrange [0:60]
set style fill transparent solid 0.4
plot '2026-12-04-data/interval-base.txt' using (bin($1)):(1.0/55953) smooth frequency with boxes title 'base', '2026-12-04-data/interval-patched.txt' using (bin($1)):(1.0/54968) smooth frequency with boxes title 'patched'
