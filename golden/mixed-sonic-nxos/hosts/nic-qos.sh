#!/bin/sh
# aifab: ConnectX QoS of every server's rail NICs (fabric mixed1, intent mixed-sonic-nxos.yaml); see docs/hosts.md
# needs root, mlnx_qos (MLNX_OFED / DOCA-OFED mlnx-tools) and the mlx5 driver's ecn sysfs
set -eu
for nic in 'eth0' 'eth1' 'eth2' 'eth3' 'eth4' 'eth5' 'eth6' 'eth7'; do
  mlnx_qos -i "$nic" --trust dscp
  # default class: every DSCP no class names
  for dscp in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 47 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63; do mlnx_qos -i "$nic" --dscp2prio "set,$dscp,0"; done
  mlnx_qos -i "$nic" --dscp2prio set,48,6 # cnp
  mlnx_qos -i "$nic" --dscp2prio set,46,5 # cts
  mlnx_qos -i "$nic" --dscp2prio set,26,3 # roce
  mlnx_qos -i "$nic" --pfc 0,0,0,1,0,0,0,0
  mlnx_qos -i "$nic" --prio_tc 0,1,2,3,4,5,6,7
  mlnx_qos -i "$nic" --tsa ets,ets,ets,ets,ets,strict,strict,ets --tc_bw 40,0,0,60,0,0,0,0
  echo 1 > "/sys/class/net/$nic/ecn/roce_np/enable/3"
  echo 1 > "/sys/class/net/$nic/ecn/roce_rp/enable/3"
  echo 48 > "/sys/class/net/$nic/ecn/roce_np/cnp_dscp"
  echo 6 > "/sys/class/net/$nic/ecn/roce_np/cnp_802p_prio"
done
