set terminal pngcairo size 1000,500 noenhanced
set output 'experiments/results/paper-nvuvm/paper-nvuvm/speedup-1.5x.png'
set title 'Speedup over UVM at 1.5x (h200-512m, modelled time)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel 'speedup over UVM (log)'
set grid ytics
set key top left
set xtics nomirror
plot 'experiments/results/paper-nvuvm/paper-nvuvm/speedup-1.5x.dat' using 2:xtic(1) title 'prefetch@nvidia-uvm', 'experiments/results/paper-nvuvm/paper-nvuvm/speedup-1.5x.dat' using 3:xtic(1) title 'mapped@nvidia-uvm', 'experiments/results/paper-nvuvm/paper-nvuvm/speedup-1.5x.dat' using 4:xtic(1) title 'static@nvidia-uvm', 'experiments/results/paper-nvuvm/paper-nvuvm/speedup-1.5x.dat' using 5:xtic(1) title 'adaptive@nvidia-uvm'
