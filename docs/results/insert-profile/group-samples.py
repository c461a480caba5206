# Groups JFR execution samples (`jfr print --events jdk.ExecutionSample --stack-depth 10 profile.jfr > s.txt`)
# by the Clockwork frames on their stack: python3 group-samples.py s.txt
import re,collections,sys
txt=open(sys.argv[1]).read()
ev=txt.split('jdk.ExecutionSample')
c=collections.Counter()
groups=collections.Counter()
def group(own, leaf):
    s=' '.join(own)
    if 'CloseGate' in s: return 'close gate add (first locked op after the value copy)'
    if 'tryClaim' in s and 'FixedClockTable.insert' in s: return 'insert probe (meta look, claim CAS)'
    if 'removeHomed' in s: return "victim's home reach word (load + CAS)"
    if 'addHomed' in s: return "new entry's home reach word CAS"
    if 'BlockPool.push' in s or 'BlockPool.free' in s: return "victim's value block freed (chunk header CAS)"
    if 'BlockPool.pop' in s or 'ValueSlabs.allocate' in s: return 'value block allocated'
    if 'ValueCopies' in s: return 'value copied in'
    if 'clockUpdate' in s or 'FixedClockTable.evict' in s or 'evictOwned' in s or 'evictCounted' in s: return 'sweep (clock update, evict)'
    if 'PaddedCounters' in s or 'addOccupancy' in s or 'addUsage' in s or 'chargeUsage' in s: return 'shard counters (occupancy, usage)'
    if 'fillAndPublish' in s: return 'fill and publish'
    return 'other: '+(own[0] if own else leaf)
for e in ev[1:]:
    m=re.search(r'stackTrace = \[(.*?)\]',e,re.S)
    if not m: continue
    frames=[re.sub(r'\s+line:.*','',l.strip()) for l in m.group(1).strip().split('\n') if l.strip() and not l.strip().startswith('...')]
    own=[f.split('(')[0].replace('dev.clockwork.offheap.','') for f in frames if f.startswith('dev.clockwork')]
    groups[group(own[:4], frames[0])]+=1
n=sum(groups.values())
print('samples',n)
for k,v in groups.most_common(20): print(f"{100*v/n:5.1f}% {k}")
