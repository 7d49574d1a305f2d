#!/usr/bin/env bash
# The real shoal-scheduler binary on real manifests: the bundled example,
# Volcano's and kube-batch's own configuration files, and bad input.
set -uo pipefail
BIN=./scheduler/shoal-scheduler
SNAP=./e2e/snapshots/gang-deadlock.yaml
TMP=${TEST_TMPDIR:-$(mktemp -d)}
passed=0; failed=0

check() {  # check NAME CONDITION-RESULT DETAIL
  if [ "$2" = 0 ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: $1"; echo "$3" | head -20; fi
}
expect_eq() { [ "$2" = "$3" ]; check "$1" $? "expected: $3
got:      $2"; }
expect_has() { case "$2" in *"$3"*) check "$1" 0 "";; *) check "$1" 1 "expected to contain: $3
got: $2";; esac; }

# --- The deadlock case, exact JSON of cycle 1.
out=$($BIN --snapshot=$SNAP --output=json 2>$TMP/err); rc=$?
expect_eq "deadlock exit code" "$rc" 0
expect_eq "deadlock json" "$out" '{"cycles":[{"binds":[{"pod":"ml-team/bert-large-worker-0","node":"gpu-node-b"},{"pod":"ml-team/bert-large-worker-1","node":"gpu-node-a"},{"pod":"ml-team/bert-large-worker-2","node":"gpu-node-b"},{"pod":"ml-team/bert-large-worker-3","node":"gpu-node-a"},{"pod":"ml-team/bert-large-worker-4","node":"gpu-node-b"},{"pod":"ml-team/bert-large-worker-5","node":"gpu-node-a"}],"evictions":[],"podGroups":[{"name":"ml-team/bert-large","phase":"Running","scheduled":6,"minMember":6,"message":"","queue":"default","priority":1000},{"name":"ml-team/resnet-152","phase":"Pending","scheduled":0,"minMember":6,"message":"waiting for admission: the gang'"'"'s minimum does not fit what the cluster can still promise (nvidia.com/gpu needs 6, 3 left; idle x overcommit-factor 1.2, less gangs already admitted)","queue":"default","priority":1000}],"claims":[],"deallocations":[]}]}'

# Under the fair-share preset the second gang's queue is full.
out=$($BIN --snapshot=$SNAP --scheduler-conf=./policies/fair-share.yaml --output=json)
expect_has "deadlock queue full" "$out" '"message":"waiting for admission: queue default is full (nvidia.com/gpu would reach 12 of 8, counting running pods and admitted gangs of this priority or higher)"'
expect_eq "deadlock: exactly one gang bound" "$(echo "$out" | grep -o '"node":' | wc -l)" 6
expect_eq "json prints nothing on stderr" "$(cat $TMP/err)" ""

# --- Later cycles see earlier binds: nothing more is bound, nothing moves.
out=$($BIN --snapshot=$SNAP --output=json --cycles=3)
expect_eq "cycle 3 binds nothing" "$(echo "$out" | grep -o '"binds":\[\]' | wc -l)" 2

# --- Text output reads like kubectl.
out=$($BIN --snapshot=$SNAP)
expect_has "text table header" "$out" "PODGROUP             QUEUE     PHASE     SCHEDULED   MINMEMBER   MESSAGE"
expect_has "text pending reason" "$out" "ml-team/resnet-152   default   Pending   0           6           waiting for admission:"

# --- Volcano's shipped default configuration loads unchanged, and so does
# a full one with every action and per-plugin switches.
cat > $TMP/volcano.conf <<'YAML'
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
YAML
cat > $TMP/volcano-full.conf <<'YAML'
actions: "enqueue, allocate, backfill, reclaim, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
    arguments:
      overcommit-factor: 1.5
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
    arguments:
      leastrequested.weight: 1
      mostrequested.weight: 0
      nodeaffinity.weight: 2
      podaffinity.weight: 2
      balancedresource.weight: 1
      tainttoleration.weight: 3
      imagelocality.weight: 1
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: 5
      binpack.memory: 1
      binpack.resources: nvidia.com/gpu
      binpack.resources.nvidia.com/gpu: 2
YAML
$BIN --snapshot=$SNAP --scheduler-conf=$TMP/volcano-full.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "full volcano config exit" "$rc" 0
expect_has "unused volcano argument reported" "$(cat $TMP/err)" 'plugin nodeorder: argument "imagelocality.weight" is not used by Shoal; ignored'
out=$($BIN --snapshot=$SNAP --scheduler-conf=$TMP/volcano.conf --output=json 2>$TMP/err); rc=$?
expect_eq "volcano config exit" "$rc" 0
expect_has "volcano config schedules the gang" "$out" '"name":"ml-team/bert-large","phase":"Running","scheduled":6'

# kube-batch's shipped default: no enqueue action.
cat > $TMP/kube-batch.conf <<'YAML'
actions: "allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
YAML
out=$($BIN --snapshot=$SNAP --scheduler-conf=$TMP/kube-batch.conf --output=json); rc=$?
expect_eq "kube-batch config exit" "$rc" 0
expect_has "kube-batch: tried without enqueue, refused whole" "$out" '{"name":"ml-team/resnet-152","phase":"Pending","scheduled":0,"minMember":6,"message":"6/6 tasks in gang unschedulable: queue default is full (its capability, or the cluster less other queues'"'"' guarantees, is reached)","queue":"default"'
expect_eq "kube-batch: exactly one gang bound" "$(echo "$out" | grep -o '"node":' | wc -l)" 6

# kube-batch's documented full configuration, predicate arguments included.
cat > $TMP/kube-batch-full.conf <<'YAML'
actions: "allocate, preempt, reclaim, backfill"
tiers:
- plugins:
    - name: priority
    - name: gang
    - name: conformance
- plugins:
    - name: drf
    - name: predicates
      arguments:
        predicate.MemoryPressureEnable: true
        predicate.DiskPressureEnable: true
        predicate.PIDPressureEnable: true
    - name: proportion
    - name: nodeorder
YAML
out=$($BIN --snapshot=$SNAP --scheduler-conf=$TMP/kube-batch-full.conf --output=json 2>$TMP/err); rc=$?
expect_eq "kube-batch full config exit" "$rc" 0
expect_has "kube-batch full config runs the gang" "$out" '"name":"ml-team/bert-large","phase":"Running","scheduled":6'
expect_has "kube-batch predicate arguments reported" "$(cat $TMP/err)" 'plugin predicates: argument "predicate.DiskPressureEnable" is not used by Shoal; ignored'

# Every shipped policy loads.
for p in ./policies/*.yaml; do
  $BIN --snapshot=$SNAP --scheduler-conf=$p >/dev/null 2>$TMP/err; rc=$?
  expect_eq "policy $p loads" "$rc" 0
done

# --- Bad configuration: exit 2, the file, the line, the valid names.
printf 'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: drff\n' > $TMP/typo.conf
$BIN --snapshot=$SNAP --scheduler-conf=$TMP/typo.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "unknown plugin exit" "$rc" 2
expect_eq "unknown plugin message" "$(cat $TMP/err)" "shoal-scheduler: $TMP/typo.conf:5: tiers[0].plugins[1].name: unknown plugin \"drff\" (valid: binpack, capacity, conformance, drf, elastic, gang, las, network-topology-aware, nodeorder, overcommit, predicates, priority, proportion, reservation)"
printf 'actions: "allocate, shuffle"\n' > $TMP/action.conf
$BIN --snapshot=$SNAP --scheduler-conf=$TMP/action.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "unknown action exit" "$rc" 2
expect_eq "unknown action message" "$(cat $TMP/err)" "shoal-scheduler: $TMP/action.conf:1: actions: unknown action \"shuffle\" (valid: allocate, backfill, consolidate, enqueue, preempt, reclaim)"
printf 'actions: "allocate, preempt"\ntiers:\n- plugins:\n  - name: gang\nconfigurations:\n- name: preempt\n  arguments: {endWholeGangs: always}\n' > $TMP/whole.conf
$BIN --snapshot=$SNAP --scheduler-conf=$TMP/whole.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "bad endWholeGangs exit" "$rc" 2
expect_has "bad endWholeGangs message" "$(cat $TMP/err)" 'endWholeGangs must be higherPriority or tiers, got "always"'
printf 'actions: "allocate"\ntiers: [\n' > $TMP/broken.conf
$BIN --snapshot=$SNAP --scheduler-conf=$TMP/broken.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "malformed config exit" "$rc" 2
expect_has "malformed config message" "$(cat $TMP/err)" "$TMP/broken.conf:3:1: malformed YAML"
$BIN --snapshot=$SNAP --scheduler-conf=$TMP/missing.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "missing config exit" "$rc" 2
expect_eq "missing config message" "$(cat $TMP/err)" "shoal-scheduler: $TMP/missing.conf: cannot read the scheduler configuration"

# --- Bad snapshots: exit 2, naming file, line, object and field.
sed 's/minMember: 6/minMember: -1/' $SNAP > $TMP/negative-min.yaml
$BIN --snapshot=$TMP/negative-min.yaml >/dev/null 2>$TMP/err; rc=$?
expect_eq "minMember -1 exit" "$rc" 2
expect_has "minMember -1 message" "$(cat $TMP/err)" "podgroup ml-team/bert-large: spec.minMember: must be >= 0, got -1"
sed '0,/memory: 16Gi/s//memory: -16Gi/' $SNAP > $TMP/negative.yaml
$BIN --snapshot=$TMP/negative.yaml >/dev/null 2>$TMP/err; rc=$?
expect_eq "negative quantity exit" "$rc" 2
expect_has "negative quantity message" "$(cat $TMP/err)" "pod ml-team/bert-large-worker-0: spec.containers[0].resources.requests.memory: must not be negative, got \"-16Gi\""
printf 'kind: Node\nmetadata: {name: a}\nstatus:\n  allocatable: {cpu: [1\n' > $TMP/broken.yaml
$BIN --snapshot=$TMP/broken.yaml >/dev/null 2>$TMP/err; rc=$?
expect_eq "malformed snapshot exit" "$rc" 2
expect_has "malformed snapshot message" "$(cat $TMP/err)" "$TMP/broken.yaml:"
expect_has "malformed snapshot says so" "$(cat $TMP/err)" "malformed YAML"

# --- Unknown kinds are skipped with one warning each; the rest runs.
{ cat $SNAP; printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ml-team}\n'; } > $TMP/extra.yaml
out=$($BIN --snapshot=$TMP/extra.yaml --output=json 2>$TMP/err); rc=$?
expect_eq "unknown kind still runs" "$rc" 0
expect_has "unknown kind warning" "$(cat $TMP/err)" "skipping ConfigMap ml-team/cm: Shoal reads Node, Pod, PodGroup, Queue, HyperNode, Workload, CompositePodGroup, PriorityClass, Namespace, PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, ResourceSlice, DeviceClass, ResourceClaim and DeviceTaintRule"

# --- Flags.
$BIN --snapshot=$SNAP --output=yaml >/dev/null 2>$TMP/err; rc=$?
expect_eq "bad output exit" "$rc" 2
expect_eq "bad output message" "$(cat $TMP/err)" "shoal-scheduler: --output must be text or json, got \"yaml\""
$BIN --kubeconfig=/nonexistent --bind-concurrency=0 >/dev/null 2>$TMP/err; rc=$?
expect_eq "bad bind concurrency exit" "$rc" 2
expect_eq "bad bind concurrency message" "$(cat $TMP/err)" "shoal-scheduler: --bind-concurrency must be at least 1, got 0"
$BIN --kubeconfig=/nonexistent --kube-api-qps=0 >/dev/null 2>$TMP/err; rc=$?
expect_eq "zero qps exit" "$rc" 2
expect_eq "zero qps message" "$(cat $TMP/err)" "shoal-scheduler: --kube-api-qps must be a positive number, got 0"
$BIN --kubeconfig=/nonexistent --kube-api-qps=-5.5 >/dev/null 2>$TMP/err; rc=$?
expect_eq "negative qps exit" "$rc" 2
expect_eq "negative qps message" "$(cat $TMP/err)" "shoal-scheduler: --kube-api-qps must be a positive number, got -5.5"
$BIN --kubeconfig=/nonexistent --kube-api-burst=0 >/dev/null 2>$TMP/err; rc=$?
expect_eq "zero burst exit" "$rc" 2
expect_eq "zero burst message" "$(cat $TMP/err)" "shoal-scheduler: --kube-api-burst must be at least 1, got 0"
$BIN --kubeconfig=/nonexistent --kube-api-burst=-3 >/dev/null 2>$TMP/err; rc=$?
expect_eq "negative burst exit" "$rc" 2
expect_eq "negative burst message" "$(cat $TMP/err)" "shoal-scheduler: --kube-api-burst must be at least 1, got -3"
$BIN --kubeconfig=/nonexistent --partial-gang-release-cycles=-1 >/dev/null 2>$TMP/err; rc=$?
expect_eq "bad release cycles exit" "$rc" 2
expect_eq "bad release cycles message" "$(cat $TMP/err)" "shoal-scheduler: --partial-gang-release-cycles must be at least 1, got -1"
$BIN --kubeconfig=/nonexistent --leader-elect-lease-duration=500ms >/dev/null 2>$TMP/err; rc=$?
expect_eq "bad lease duration exit" "$rc" 2
expect_eq "bad lease duration message" "$(cat $TMP/err)" "shoal-scheduler: --leader-elect-lease-duration must be at least 1s, got 500ms"
$BIN >/dev/null 2>$TMP/err; rc=$?
expect_eq "no source exit" "$rc" 2
expect_has "no source message" "$(cat $TMP/err)" "pass --snapshot=FILE"
$BIN --snapshot=$SNAP --schedule-conf=x >/dev/null 2>$TMP/err; rc=$?
expect_eq "unknown flag exit" "$rc" 2
expect_has "unknown flag message" "$(cat $TMP/err)" "shoal-scheduler: unknown flag --schedule-conf (valid: "
expect_has "unknown flag lists valid ones" "$(cat $TMP/err)" "--scheduler-conf"
$BIN --snapshot=$SNAP cluster.yaml >/dev/null 2>$TMP/err; rc=$?
expect_eq "positional argument exit" "$rc" 2
expect_eq "positional argument message" "$(cat $TMP/err)" "shoal-scheduler: unexpected argument \"cluster.yaml\"; flags take the form --name=value"

# --- Queue trees: reclaim takes from siblings before cousins, and from a
# sibling even when the parent stands at its capability.
TREE=./e2e/snapshots/queue-tree-reclaim.yaml
out=$($BIN --snapshot=$TREE --scheduler-conf=./policies/fair-share.yaml --output=json 2>/dev/null)
expect_has "reclaim from the sibling, not the cousin" "$out" '"evictions":[{"pod":"team/ml-0","reason":"reclaim","movedTo":""},{"pod":"team/ml-1","reason":"reclaim","movedTo":""}]'
sed -e '/metadata: {name: eng}/{n;s/spec: {weight: 1}/spec: {weight: 1, capability: {cpu: "6"}}/}' \
    -e 's/{phase: Inqueue}/{phase: Pending}/' $TREE > $TMP/full-parent.yaml
out=$($BIN --snapshot=$TMP/full-parent.yaml --scheduler-conf=./policies/fair-share.yaml --output=json 2>/dev/null)
expect_has "a full parent admits and reclaims from the sibling" "$out" '"evictions":[{"pod":"team/ml-0","reason":"reclaim","movedTo":""},{"pod":"team/ml-1","reason":"reclaim","movedTo":""}]'
expect_has "the parent's capability was in force" "$(grep -c 'capability: {cpu: "6"}' $TMP/full-parent.yaml)" "1"

# --- A reservation holds admission and nodes only for a gang that waits
# for room: behind Volcano's fence (borrowing: false), a gang its own
# queue refuses does not keep the rest of the cluster idle.
sed 's/^  - name: proportion$/  - name: proportion\n    arguments: {borrowing: false}/' ./policies/fair-share.yaml > $TMP/fence.yaml
expect_has "the fence policy has a reservation" "$(cat $TMP/fence.yaml)" "name: reservation"
out=$($BIN --snapshot=./e2e/snapshots/reservation-behind-a-fence.yaml --scheduler-conf=$TMP/fence.yaml 2>/dev/null)
expect_has "the other queue's job runs" "$out" "team/small-0   n0"
expect_has "the fenced gang names the fence" "$out" "waiting for admission: queue a has reached its deserved share"

# --- Reclaim never takes a queue below its guarantee, whatever the tiers say.
out=$($BIN --snapshot=./e2e/snapshots/reclaim-keeps-guarantees.yaml --scheduler-conf=./policies/capacity.yaml 2>/dev/null)
expect_eq "the guaranteed queue keeps its pods" "$(echo "$out" | head -1)" "Cycle 1: 0 bound, 0 evicted"

# --- A parent at its limit does not stop a child below its share: room
# is taken back from a sibling under the same parent.
out=$($BIN --snapshot=./e2e/snapshots/reclaim-parent-at-limit.yaml --scheduler-conf=./policies/capacity.yaml --cycles=2 --output=json 2>/dev/null)
expect_has "the sibling lends" "$out" '"evictions":[{"pod":"team/hog-0","reason":"reclaim","movedTo":""}]'
expect_has "the child's gang runs" "$out" '"binds":[{"pod":"team/g-0","node":"a"}]'

# --- Under a parent at its capability, idle room elsewhere is no use to
# a child below its share: room is taken back under the parent.
out=$($BIN --snapshot=./e2e/snapshots/reclaim-parent-at-capability.yaml --scheduler-conf=./policies/fair-share.yaml --cycles=2 --output=json 2>/dev/null)
expect_has "a sibling's pod taken under the parent" "$out" '"evictions":[{"pod":"ns/h0-0","reason":"reclaim","movedTo":""}]'
expect_has "the gang runs in its room" "$out" '"binds":[{"pod":"ns/g-0","node":"n1"},{"pod":"ns/g-1","node":"n1"}]'

# --- A leaf over its share lends only inside a branch within its own.
out=$($BIN --snapshot=./e2e/snapshots/reclaim-stays-in-branch.yaml --scheduler-conf=./policies/capacity.yaml --cycles=2 --output=json 2>/dev/null)
expect_has "taken from the queue over its share at the top" "$out" '"evictions":[{"pod":"team/d-work-0","reason":"elastic","movedTo":""},{"pod":"team/d-work-1","reason":"elastic","movedTo":""}]'
expect_has "the gang runs there" "$out" '"binds":[{"pod":"team/c-gang-0","node":"n1"},{"pod":"team/c-gang-1","node":"n1"}]'

# --- A gang of unequal pods that fits only largest first still takes
# back its room.
out=$($BIN --snapshot=./e2e/snapshots/reclaim-largest-first.yaml --scheduler-conf=./policies/capacity.yaml --cycles=2 --output=json 2>/dev/null)
expect_has "one eviction" "$out" '"evictions":[{"pod":"team/lone","reason":"reclaim","movedTo":""}]'
expect_has "the whole gang runs" "$out" '"binds":[{"pod":"team/g-0","node":"b"},{"pod":"team/g-1","node":"a"},{"pod":"team/g-2","node":"b"},{"pod":"team/g-3","node":"c"}]'

# --- Network topology: a hard gang stays in one rack or waits whole.
out=$($BIN --snapshot=./e2e/snapshots/network-topology-hard.yaml --cycles=2 --output=json 2>$TMP/err)
expect_has "hard gang inside rack1" "$out" '"binds":[{"pod":"team/big-0","node":"n2"},{"pod":"team/big-1","node":"n3"},{"pod":"team/big-2","node":"n2"},{"pod":"team/big-3","node":"n3"}]'
expect_has "a gang no rack holds waits, naming the racks" "$out" '"message":"waiting for admission: no network domain up to tier 1 holds 4 pods of cpu: 2 (spec.networkTopology mode hard, highestTierName rack): rack0 has room for 3, rack1 has room for 0"'
expect_has "the smaller gang then takes rack0" "$out" '"binds":[{"pod":"team/small-0","node":"n1"},{"pod":"team/small-1","node":"n0"},{"pod":"team/small-2","node":"n1"}]'
expect_eq "hypernodes read without a word" "$(cat $TMP/err)" ""

# Soft gangs stay in one rack when one holds them; a hard gang takes its
# room by evictions inside one domain only.
out=$($BIN --snapshot=./e2e/snapshots/network-topology-soft.yaml --cycles=2 --output=json 2>$TMP/err)
expect_has "soft gang inside rack0" "$out" '"binds":[{"pod":"team/soft3-0","node":"n1"},{"pod":"team/soft3-1","node":"n0"},{"pod":"team/soft3-2","node":"n1"}]'
expect_has "soft gang that fits no rack waits only for room" "$out" '"name":"team/wide","phase":"Inqueue","scheduled":0,"minMember":3,"message":"3/3 tasks in gang unschedulable: 0/4 nodes are available: 4 Insufficient cpu."'
expect_has "hard gang without evictions: not admitted, racks named" "$out" '"message":"waiting for admission: no network domain up to tier 1 holds 2 pods of cpu: 4 (spec.networkTopology mode hard, highestTierAllowed 1): rack0 has room for 1, rack1 has room for 1"'
out=$($BIN --snapshot=./e2e/snapshots/network-topology-soft.yaml --scheduler-conf=./policies/fair-share.yaml --cycles=2 --output=json 2>$TMP/err)
expect_has "preempt evicts inside rack1 only" "$out" '"evictions":[{"pod":"team/low","reason":"preempt","movedTo":""}]'
expect_has "the hard gang then runs in rack1" "$out" '"binds":[{"pod":"team/urgent-0","node":"n2"},{"pod":"team/urgent-1","node":"n3"}'

# The cheapest single rack, not node order across racks (which would evict
# low-0 and place the gang on n0 and n2).
out=$($BIN --snapshot=./e2e/snapshots/network-topology-preempt.yaml --scheduler-conf=./policies/fair-share.yaml --cycles=2 --output=json 2>$TMP/err)
expect_has "one eviction, in rack1" "$out" '"evictions":[{"pod":"team/low-3","reason":"preempt","movedTo":""}]'
expect_has "the gang in rack1" "$out" '"binds":[{"pod":"team/urgent-0","node":"n2"},{"pod":"team/urgent-1","node":"n3"}]'

# Sub-groups: each replica whole inside one rack, the gang inside one
# spine; a gang whose pods form fewer sub-groups than it needs says so.
out=$($BIN --snapshot=./e2e/snapshots/network-topology-subgroups.yaml --cycles=2 --output=json 2>$TMP/err)
expect_has "replica a in rack2, replica b in rack3" "$out" '"binds":[{"pod":"team/llm-a-0","node":"n4"},{"pod":"team/llm-a-1","node":"n5"},{"pod":"team/llm-a-2","node":"n4"},{"pod":"team/llm-a-3","node":"n5"},{"pod":"team/llm-b-0","node":"n6"},{"pod":"team/llm-b-1","node":"n7"},{"pod":"team/llm-b-2","node":"n6"},{"pod":"team/llm-b-3","node":"n7"}]'
expect_has "too few sub-groups named" "$out" '"name":"team/odd","phase":"Inqueue","scheduled":0,"minMember":4,"message":"not enough sub-groups for the gang: its pods form 2 sub-groups of policy replica, spec.subGroupPolicy[0].minSubGroups is 3"'
expect_eq "sub-groups read without a word" "$(cat $TMP/err)" ""

# --- Kubernetes' own gangs (Workload, spec.workloadRef): never half a gang.
out=$($BIN --snapshot=./e2e/snapshots/workload-gangs.yaml 2>$TMP/err)
expect_has "a gang short of pods waits, naming its minimum" "$out" "ml/train/workers   default   Inqueue   0           4           not enough pods for the gang: 2 exist, the Workload's podGroups[].policy.gang.minCount is 4"
expect_has "basic pods bound" "$out" "ml/serve-1    n0"
expect_has "each replica key a gang of its own" "$out" "ml/tune/trials/1   default   Running   2           2           -"
expect_has "a missing Workload named" "$out" "workload ml/ghost does not exist; the pods that name it (spec.workloadRef) wait until it is created"
expect_has "a missing podGroup named" "$out" "workload ml/serve has no podGroup \"replica\" (spec.podGroups names replicas); the pods that name it wait until it does"
expect_has "two gangs refused" "$out" "pod ml/both-0 names two gangs: podgroup pg and workload train podGroup workers (spec.workloadRef); it waits until it names one"
expect_has "a missing PodGroup beside a Workload waited for" "$out" "ml/nopg            default   Pending   0           1           podgroup ml/nopg does not exist; its pods wait until it is created"
expect_eq "six bound" "$(echo "$out" | head -1)" "Cycle 1: 6 bound, 0 evicted"
expect_eq "workloads read without a word" "$(cat $TMP/err)" ""

# What a network description leaves out is said, once per tree.
$BIN --snapshot=./e2e/snapshots/network-topology-faulty.yaml --cycles=2 --output=json >/dev/null 2>$TMP/err
expect_has "missing member named" "$(cat $TMP/err)" "network topology: hypernode r1: spec.members[1]: node n9 does not exist; it is left out"
expect_has "node in two racks named" "$(cat $TMP/err)" "network topology: node n1 is in hypernodes r0, r1, all of tier 1; a node belongs to one domain per tier, so it is left out of each"
expect_eq "said once in two cycles" "$(grep -c 'does not exist' $TMP/err)" 1

# --- Fields Shoal does not implement yet are named, never dropped.
out=$($BIN --snapshot=./e2e/snapshots/unimplemented-fields.yaml 2>$TMP/err)
expect_has "a gang of sub-groups of one is placed" "$out" "team/llm    default   Running   2           2           -"
expect_has "pod field holds the pod" "$out" "pod team/lone uses spec.resources, which Shoal does not implement yet; it waits rather than be placed as if that were absent"
expect_eq "only the gang bound" "$(echo "$out" | head -1)" "Cycle 1: 2 bound, 0 evicted"
expect_has "queue field warned" "$(cat $TMP/err)" "unimplemented-fields.yaml:13: queue default: spec.dequeueStrategy: \"fifo\": Shoal does not implement it yet; the queue is scheduled as if it were absent"
expect_has "unknown field warned" "$(cat $TMP/err)" "podgroup team/llm: spec.minMembers: not a field Shoal knows; ignored (said once for every podgroup)"

# --- Live mode: what it cannot use is refused before anything runs.
$BIN --kubeconfig=/nonexistent/kubeconfig >/dev/null 2>$TMP/err; rc=$?
expect_eq "missing kubeconfig exit" "$rc" 2
expect_eq "missing kubeconfig message" "$(cat $TMP/err)" "shoal-scheduler: kubeconfig: cannot read /nonexistent/kubeconfig"
$BIN --kubeconfig=/nonexistent/kubeconfig --scheduler-conf=$TMP/typo.conf >/dev/null 2>$TMP/err; rc=$?
expect_eq "bad policy refused before the cluster" "$rc" 2
expect_has "bad policy message first" "$(cat $TMP/err)" "unknown plugin \"drff\""

echo "replay_test: $passed passed, $failed failed"
[ "$failed" = 0 ]
