# The devices QEMU is built with (build-qemu.sh: --without-default-devices
# --with-devices-x86_64=ember): the q35 board the VMs run on, emgpu, and
# vfio-pci and PCIe root ports for a real card beside it
# (scripts/vfio-passthrough.sh, libvirt's <hostdev>). HPET, vmport and
# vmmouse are devices q35 creates by itself when they are built; they stay
# so that the guest sees the machine a default build gives it.
CONFIG_Q35=y
CONFIG_HPET=y
CONFIG_VMPORT=y
CONFIG_VMMOUSE=y
CONFIG_EMGPU=y
CONFIG_VFIO_PCI=y
CONFIG_PCIE_PORT=y
