#!/bin/sh
# aifab: ConnectX QoS of every server's rail NICs (fabric hpn1, intent hpn-dual-plane.yaml); see docs/hosts.md
# needs root, mlnx_qos (MLNX_OFED / DOCA-OFED mlnx-tools) and the mlx5 driver's ecn sysfs
set -eu
# DCQCN's sysfs (ecn/) is the MLNX_OFED / DOCA-OFED mlx5 driver's: check every port before changing any
for nic in 'eth0p1' 'eth0p2' 'eth1p1' 'eth1p2'; do
  [ -d "/sys/class/net/$nic/ecn" ] || { echo "$nic: no /sys/class/net/$nic/ecn: install the MLNX_OFED or DOCA-OFED mlx5 driver (docs/hosts.md)" >&2; exit 1; }
done
for nic in 'eth0p1' 'eth0p2' 'eth1p1' 'eth1p2'; do
  mlnx_qos -i "$nic" --trust dscp
  # default class: every DSCP no class names
  mlnx_qos -i "$nic" \
    --dscp2prio set,0,0 --dscp2prio set,1,0 --dscp2prio set,2,0 --dscp2prio set,3,0 --dscp2prio set,4,0 --dscp2prio set,5,0 --dscp2prio set,6,0 --dscp2prio set,7,0 \
    --dscp2prio set,8,0 --dscp2prio set,9,0 --dscp2prio set,10,0 --dscp2prio set,11,0 --dscp2prio set,12,0 --dscp2prio set,13,0 --dscp2prio set,14,0 --dscp2prio set,15,0 \
    --dscp2prio set,16,0 --dscp2prio set,17,0 --dscp2prio set,18,0 --dscp2prio set,19,0 --dscp2prio set,20,0 --dscp2prio set,21,0 --dscp2prio set,22,0 --dscp2prio set,23,0 \
    --dscp2prio set,24,0 --dscp2prio set,25,0 --dscp2prio set,27,0 --dscp2prio set,28,0 --dscp2prio set,29,0 --dscp2prio set,30,0 --dscp2prio set,31,0 --dscp2prio set,32,0 \
    --dscp2prio set,33,0 --dscp2prio set,34,0 --dscp2prio set,35,0 --dscp2prio set,36,0 --dscp2prio set,37,0 --dscp2prio set,38,0 --dscp2prio set,39,0 --dscp2prio set,41,0 \
    --dscp2prio set,42,0 --dscp2prio set,43,0 --dscp2prio set,44,0 --dscp2prio set,45,0 --dscp2prio set,46,0 --dscp2prio set,47,0 --dscp2prio set,49,0 --dscp2prio set,50,0 \
    --dscp2prio set,51,0 --dscp2prio set,52,0 --dscp2prio set,53,0 --dscp2prio set,54,0 --dscp2prio set,55,0 --dscp2prio set,56,0 --dscp2prio set,57,0 --dscp2prio set,58,0 \
    --dscp2prio set,59,0 --dscp2prio set,60,0 --dscp2prio set,61,0 --dscp2prio set,62,0 --dscp2prio set,63,0
  mlnx_qos -i "$nic" --dscp2prio set,48,6 # cnp
  mlnx_qos -i "$nic" --dscp2prio set,40,5 # cts
  mlnx_qos -i "$nic" --dscp2prio set,26,3 # roce
  mlnx_qos -i "$nic" --pfc 0,0,0,1,0,0,0,0
  mlnx_qos -i "$nic" --prio_tc 0,1,2,3,4,5,6,7
  mlnx_qos -i "$nic" --tsa ets,ets,ets,ets,ets,strict,strict,ets --tcbw 20,0,0,80,0,0,0,0
  mlnx_qos -i "$nic" --ratelimit 0,0,0,0,0,20,20,0 # Gbit/s per TC, 0 unlimited: the strict classes' max_rate
  echo 1 > "/sys/class/net/$nic/ecn/roce_np/enable/3"
  echo 1 > "/sys/class/net/$nic/ecn/roce_rp/enable/3"
  echo 48 > "/sys/class/net/$nic/ecn/roce_np/cnp_dscp"
  echo 6 > "/sys/class/net/$nic/ecn/roce_np/cnp_802p_prio"
done
# RDMA CM's default ToS (perftest -R, UCX, MPI, NVMe-oF: connections that set none): the data class's DSCP x 4, as NCCL_IB_TC
modprobe rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
for nic in 'eth0p1' 'eth0p2' 'eth1p1' 'eth1p2'; do
  for dev in /sys/class/net/"$nic"/device/infiniband/*; do
    [ -e "$dev" ] || { echo "$nic: no RDMA device (/sys/class/net/$nic/device/infiniband)" >&2; exit 1; }
    cm="/sys/kernel/config/rdma_cm/${dev##*/}"
    mkdir -p "$cm"
    echo 104 > "$cm/ports/1/default_roce_tos"
  done
done
# NCCL_IB_HCA (nccl.env) names an RDMA device per NIC port: fail unless each is its port's
hca() { [ -d "/sys/class/infiniband/$1/device/net/$2" ] || { echo "RDMA device $1 is not $2's: fix hosts.nccl.hca" >&2; exit 1; }; }
hca 'mlx5_0' 'eth0p1'
hca 'mlx5_1' 'eth0p2'
hca 'mlx5_2' 'eth1p1'
hca 'mlx5_3' 'eth1p2'
