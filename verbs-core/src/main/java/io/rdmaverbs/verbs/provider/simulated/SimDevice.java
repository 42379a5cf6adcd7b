package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;

/**
 * The kernel side of one device: object accounting against the profile's limits, the tables the
 * fabric routes through (QPs by number, MRs by key, XRC SRQs by number, multicast groups), XRC domains
 * by inode, port states and the fatal flag. Everything is guarded by {@link #lock}; the fabric takes
 * every device's lock (in a fixed order) before touching more than one device.
 */
final class SimDevice {

    final DeviceProfile profile;
    final int ordinal;
    final ReentrantLock lock = new ReentrantLock();
    /** RNR NAKs this device's requesters got ({@code hw_counters/rcvd_rnr_err} on rxe). */
    private final java.util.concurrent.atomic.AtomicLong rnrNaksReceived = new java.util.concurrent.atomic.AtomicLong();
    private final PortState[] portStates;
    volatile boolean fatal;
    private final EnumMap<KernelObjectKind, Integer> live = new EnumMap<>(KernelObjectKind.class);
    private final EnumMap<KernelObjectKind, Long> ids = new EnumMap<>(KernelObjectKind.class);
    private long domainIds;
    private int nextQpNum;
    private int nextSrqNum = 1;
    private int nextMrIndex = 1;
    private final Random keys;
    final Map<Integer, KernelQp> qps = new HashMap<>();
    final Map<Integer, SimSrq> xrcSrqs = new HashMap<>();
    final Map<Integer, SimMr> mrs = new HashMap<>();
    final Map<Object, KernelXrcd> domainsByInode = new HashMap<>();
    final Map<Gid, Set<KernelQp>> multicastGroups = new HashMap<>();
    final Set<SimContext> contexts = new LinkedHashSet<>();
    final List<LeakedObject> leaks = new ArrayList<>();
    private int openDomains;

    SimDevice(DeviceProfile profile, int ordinal) {
        this.profile = profile;
        this.ordinal = ordinal;
        this.portStates = profile.ports().stream().map(DeviceProfile.Port::state).toArray(PortState[]::new);
        this.nextQpNum = profile.driver().firstQpNumber();
        // Keys look random on real devices; a seed from the GUID keeps runs reproducible.
        this.keys = new Random(profile.guid());
        for (KernelObjectKind kind : KernelObjectKind.values()) {
            live.put(kind, 0);
            ids.put(kind, 0L);
        }
    }

    String name() {
        return profile.name();
    }

    Driver driver() {
        return profile.driver();
    }

    boolean hasPort(int port) {
        return port >= 1 && port <= portStates.length;
    }

    PortState portState(int port) {
        return portStates[port - 1];
    }

    void portState(int port, PortState state) {
        portStates[port - 1] = state;
    }

    boolean portActive(int port) {
        return hasPort(port) && portStates[port - 1] == PortState.ACTIVE;
    }

    /** EIO for every verb but the destroys once the device is dead, as after a disassociation. */
    void requireAlive(String verb, String resource) {
        if (fatal) {
            throw new VerbsException(verb, resource, Errno.EIO, "device " + name()
                    + " had a fatal error (IBV_EVENT_DEVICE_FATAL); only destroying objects still works");
        }
    }

    long nextId(KernelObjectKind kind) {
        long id = ids.get(kind) + 1;
        ids.put(kind, id);
        return id;
    }

    /** Counts a new kernel object, or fails as the driver does when the device limit is reached. */
    void allocate(KernelObjectKind kind, String verb, String resource) {
        int count = live.get(kind);
        int limit = limit(kind);
        if (count >= limit) {
            throw new VerbsException(verb, resource, driver().exhausted(kind), "device " + name() + " already has "
                    + count + " " + kind.verbsName() + " objects, its limit; destroy some first (leaked objects of"
                    + " closed contexts count too)");
        }
        live.put(kind, count + 1);
    }

    void free(KernelObjectKind kind) {
        live.put(kind, live.get(kind) - 1);
    }

    private int limit(KernelObjectKind kind) {
        DeviceAttributes a = profile.attributes();
        return switch (kind) {
            case PD -> a.maxPd();
            case CQ -> a.maxCq();
            case QP -> a.maxQp();
            case SRQ -> a.maxSrq();
            case MR -> a.maxMr();
            case AH -> a.maxAh();
            case CONTEXT, XRCD, COMP_CHANNEL -> Integer.MAX_VALUE;
        };
    }

    KernelXrcd newDomain(Object inode) {
        openDomains++;
        return new KernelXrcd(++domainIds, inode);
    }

    KernelXrcd newPrivateDomain() {
        openDomains++;
        return new KernelXrcd(++domainIds, null);
    }

    void domainGone(KernelXrcd domain) {
        openDomains--;
        if (domain.inode != null) {
            domainsByInode.remove(domain.inode);
        }
    }

    /** QP numbers are 24 bits and handed out cyclically, like rxe's pool, skipping live ones. */
    int allocateQpNum() {
        while (true) {
            int candidate = nextQpNum;
            nextQpNum = candidate >= 0xffffff ? profile.driver().firstQpNumber() : candidate + 1;
            if (!qps.containsKey(candidate)) {
                return candidate;
            }
        }
    }

    int allocateSrqNum() {
        while (xrcSrqs.containsKey(nextSrqNum)) {
            nextSrqNum++;
        }
        return nextSrqNum++;
    }

    /** An lkey as rxe builds it: the pool index in the upper 24 bits, a key byte below. */
    int allocateKey() {
        while (true) {
            int index = nextMrIndex;
            nextMrIndex = index >= 0xffffff ? 1 : index + 1;
            int key = (index << 8) | keys.nextInt(256);
            if (!mrs.containsKey(key)) {
                return key;
            }
        }
    }

    /** Queues an async event on every open context of the device (port and device events). */
    void broadcast(AsyncEventRecord event) {
        for (SimContext context : contexts) {
            context.asyncEvents.add(event);
        }
    }

    ResourceCounts counts() {
        return new ResourceCounts(name(), contexts.size(), live.get(KernelObjectKind.PD), openDomains,
                live.get(KernelObjectKind.COMP_CHANNEL), live.get(KernelObjectKind.CQ), live.get(KernelObjectKind.SRQ),
                live.get(KernelObjectKind.QP), live.get(KernelObjectKind.MR), live.get(KernelObjectKind.AH));
    }

    void rnrNakReceived() {
        rnrNaksReceived.incrementAndGet();
    }

    long rnrNaksReceived() {
        return rnrNaksReceived.get();
    }
}
