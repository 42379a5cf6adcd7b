package io.rdmaverbs.verbs.provider.simulated;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.rdmaverbs.verbs.Errno;
import io.rdmaverbs.verbs.VerbsException;
import io.rdmaverbs.verbs.WorkCompletions;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.OpenFlags;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.jspecify.annotations.Nullable;

/**
 * A pure-Java model of the kernel ({@code ib_uverbs}, {@code ib_core}, the device driver) and of
 * libibverbs, behind the same interface as the native provider. Not a mock: objects are accounted
 * against the device limits, every refusal is the errno the kernel or libibverbs gives (calibrated
 * against soft-RoCE on kernel 6.1 and rdma-core 44, see {@link Driver}), and data really moves between
 * connected QPs of all devices of one provider, through the native memory their MRs registered.
 *
 * <p>Thread-safe: each device has a lock; verbs on one device's objects take it, verbs that move data or
 * change what a QP accepts (post, modify, destroy QP/SRQ) take every device's lock in a fixed order.
 * Blocking verbs ({@link #getCqEvent}, {@link #destroyCq}, {@link #getAsyncEvent}) wait without
 * holding any lock.
 *
 * <p>Besides the verbs it offers simulation hooks for tests: {@link #setPortState},
 * {@link #injectDeviceFatal}, and inspection like {@code rdma resource show}: {@link #resourceCounts},
 * {@link #leakedObjects}.
 */
public final class SimulatedProvider implements VerbsProvider {

    /** {@code ENODATA}: an empty GID table entry (the project's {@link Errno} has no constant for it). */
    static final Errno ENODATA = Errno.ENODATA;

    private final List<SimDevice> devices;
    private final Map<String, SimDevice> byName;
    private final Fabric fabric;
    private final DescriptorTable descriptors = new DescriptorTable();

    private SimulatedProvider(List<DeviceProfile> profiles) {
        if (profiles.isEmpty()) {
            throw new IllegalArgumentException("a simulated provider needs at least one device profile");
        }
        List<SimDevice> list = new ArrayList<>();
        Map<String, SimDevice> names = new LinkedHashMap<>();
        Set<Long> guids = new HashSet<>();
        Set<Gid> gids = new HashSet<>();
        Set<Integer> lids = new HashSet<>();
        for (DeviceProfile profile : profiles) {
            Objects.requireNonNull(profile, "profile");
            if (names.containsKey(profile.name())) {
                throw new IllegalArgumentException("two devices are named " + profile.name());
            }
            if (!guids.add(profile.guid())) {
                throw new IllegalArgumentException("device " + profile.name() + " repeats GUID " + profile.info().guidHex()
                        + "; give each device its own (DeviceProfile.rxe/mlx5 derive one from the name)");
            }
            Set<Gid> own = new HashSet<>();
            for (DeviceProfile.Port port : profile.ports()) {
                for (Gid gid : port.gids()) {
                    if (!gid.isZero() && own.add(gid) && !gids.add(gid)) {
                        throw new IllegalArgumentException("GID " + gid + " of " + profile.name()
                                + " is already used by another device: packets could not be routed");
                    }
                }
                if (port.lid() != 0 && !lids.add(port.lid())) {
                    throw new IllegalArgumentException("LID " + port.lid() + " of " + profile.name()
                            + " is already used by another port");
                }
            }
            SimDevice device = new SimDevice(profile, list.size());
            list.add(device);
            names.put(profile.name(), device);
        }
        this.devices = List.copyOf(list);
        this.byName = Map.copyOf(names);
        this.fabric = new Fabric(devices);
    }

    /** A provider with these devices, all on one simulated fabric. */
    public static SimulatedProvider of(DeviceProfile... profiles) {
        return new SimulatedProvider(List.of(profiles));
    }

    public static SimulatedProvider of(List<DeviceProfile> profiles) {
        return new SimulatedProvider(List.copyOf(profiles));
    }

    @Override
    public String name() {
        return "simulated";
    }

    /** The profiles of this provider's devices, in {@link #devices()} order. */
    public List<DeviceProfile> profiles() {
        return devices.stream().map(d -> d.profile).toList();
    }

    // ---- devices -------------------------------------------------------------------------------

    @Override
    public List<DeviceInfo> devices() {
        return devices.stream().map(d -> d.profile.info()).toList();
    }

    @Override
    public ContextHandle openDevice(DeviceInfo device) {
        Objects.requireNonNull(device, "device");
        SimDevice d = devices.stream().filter(x -> x.profile.info().equals(device)).findFirst()
                .orElseThrow(() -> new VerbsException("ibv_open_device", device.name(), Errno.ENODEV,
                        "no such device in this simulated provider; it has " + byName.keySet()));
        return locked(d, () -> {
            d.requireAlive("ibv_open_device", d.name());
            SimContext context = new SimContext(this, d, d.nextId(ResourceKind.CONTEXT));
            d.contexts.add(context);
            return context;
        });
    }

    /**
     * {@code ibv_close_device} succeeds with objects still alive, and does not free them: they stay in
     * the device's accounting, unusable, and are reported by {@link #leakedObjects()}. (In the kernel the
     * uverbs file is released only when its last reference goes; the queue buffers rdma-core maps hold
     * such references until the process exits.)
     */
    @Override
    public void closeDevice(ContextHandle context) {
        SimContext ctx = own(context, SimContext.class);
        SimDevice d = ctx.device;
        locked(d, () -> {
            ctx.requireUsable();
            for (SimHandle child : ctx.children()) {
                d.leaks.add(new LeakedObject(d.name(), ctx.describe(), child.kind, child.describe()));
                if (child instanceof SimCompChannel channel) {
                    channel.eventArrived.signalAll();
                }
            }
            d.contexts.remove(ctx);
            ctx.markDestroyed();
        });
    }

    @Override
    public DeviceAttributes queryDevice(ContextHandle context) {
        SimContext ctx = own(context, SimContext.class);
        ctx.device.requireAlive("ibv_query_device", ctx.describe());
        return ctx.device.profile.attributes();
    }

    @Override
    public PortAttributes queryPort(ContextHandle context, int port) {
        SimContext ctx = own(context, SimContext.class);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_query_port", ctx.describe());
            requirePort("ibv_query_port", ctx, port);
            DeviceProfile.Port p = d.profile.port(port);
            PortState state = d.portState(port);
            int physicalState = state == PortState.ACTIVE ? 5 : 3; // LINK_UP, else DISABLED
            return new PortAttributes(port, state, p.maxMtu(), p.activeMtu(), p.gidTableLength(), p.portCapFlags(),
                    p.maxMessageSize(), p.pkeyTableLength(), p.lid(), p.smLid(), 0, p.activeWidth(), p.activeSpeed(),
                    physicalState, p.linkLayer());
        });
    }

    /** An index inside the table whose entry is empty reads as the zero GID (libibverbs maps ENODATA to it). */
    @Override
    public Gid queryGid(ContextHandle context, int port, int index) {
        SimContext ctx = own(context, SimContext.class);
        ctx.device.requireAlive("ibv_query_gid", ctx.describe());
        requirePort("ibv_query_gid", ctx, port);
        DeviceProfile.Port p = ctx.device.profile.port(port);
        if (index < 0 || index >= p.gidTableLength()) {
            throw new VerbsException("ibv_query_gid", ctx.describe(), Errno.EINVAL, "GID index " + index
                    + " is outside port " + port + "'s table of " + p.gidTableLength() + " entries");
        }
        return p.gid(index);
    }

    // ---- protection and XRC domains -----------------------------------------------------------

    @Override
    public PdHandle allocPd(ContextHandle context) {
        SimContext ctx = own(context, SimContext.class);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_alloc_pd", ctx.describe());
            d.allocate(ResourceKind.PD, "ibv_alloc_pd", ctx.describe());
            SimPd pd = new SimPd(ctx, d.nextId(ResourceKind.PD));
            ctx.adopt(pd);
            return pd;
        });
    }

    @Override
    public void deallocPd(PdHandle pd) {
        SimPd p = own(pd, SimPd.class);
        SimDevice d = p.device;
        locked(d, () -> {
            p.requireUsable();
            if (!d.fatal && p.usecnt > 0) {
                throw new VerbsException("ibv_dealloc_pd", p.describe(), Errno.EBUSY, "still used by " + p.usecnt
                        + " object(s) (QPs, SRQs, MRs, AHs): " + users(p.context(), h -> usesPd(h, p))
                        + "; destroy them first");
            }
            d.free(ResourceKind.PD);
            p.context().release(p);
            p.markDestroyed();
        });
    }

    @Override
    public int openFile(Path file, boolean create) {
        return descriptors.openFile(Objects.requireNonNull(file, "file"), create);
    }

    @Override
    public void closeFile(int fd) {
        descriptors.closeFile(fd);
    }

    /**
     * {@code ibv_open_xrcd}, as the kernel's {@code ib_uverbs_open_xrcd} decides: a domain is shared per
     * device by inode; O_CREAT creates it, O_CREAT|O_EXCL refuses an existing one (EINVAL), no O_CREAT
     * and no domain is EAGAIN, an unknown descriptor EBADF.
     *
     * <p>{@code fd == -1} opens a new private domain whatever {@code oflags} say: the kernel skips the
     * flag checks for it and rdma-core adds none (the man page's "use O_CREAT" is advice, not a check).
     */
    @Override
    public XrcdHandle openXrcd(ContextHandle context, int fd, int oflags) {
        SimContext ctx = own(context, SimContext.class);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            if (!d.profile.supportsXrc()) {
                // rdma-core fills a provider's missing open_xrcd op with one that answers EOPNOTSUPP.
                throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EOPNOTSUPP, "device " + d.name()
                        + " does not support XRC (no IBV_DEVICE_XRC; soft-RoCE never does): use RC QPs or an HCA");
            }
            d.requireAlive("ibv_open_xrcd", ctx.describe());
            XrcDomain domain;
            if (fd == -1) {
                domain = d.newPrivateDomain();
            } else {
                DescriptorTable.FileEntry file = descriptors.file(fd);
                if (file == null) {
                    throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EBADF, "fd " + fd
                            + " is not an open file; open the file that names the domain first (openFile)");
                }
                domain = d.domainsByInode.get(file.inode());
                boolean create = (oflags & OpenFlags.CREATE) != 0;
                if (domain == null && !create) {
                    throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EAGAIN, "no XRC domain exists for "
                            + file.path() + " on " + d.name() + " yet; pass O_CREAT to create it");
                }
                if (domain != null && create && (oflags & OpenFlags.EXCLUSIVE) != 0) {
                    throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EINVAL, "an XRC domain for "
                            + file.path() + " already exists on " + d.name() + " and O_EXCL was given; drop O_EXCL"
                            + " to share it");
                }
                if (domain == null) {
                    domain = d.newDomain(file.inode());
                    d.domainsByInode.put(file.inode(), domain);
                }
            }
            domain.opens++;
            SimXrcd xrcd = new SimXrcd(ctx, d.nextId(ResourceKind.XRCD), domain);
            ctx.adopt(xrcd);
            return xrcd;
        });
    }

    @Override
    public void closeXrcd(XrcdHandle xrcd) {
        SimXrcd x = own(xrcd, SimXrcd.class);
        SimDevice d = x.device;
        locked(d, () -> {
            x.requireUsable();
            if (!d.fatal && x.usecnt > 0) {
                throw new VerbsException("ibv_close_xrcd", x.describe(), Errno.EBUSY, "this context still has "
                        + x.usecnt + " XRC receive QP registration(s) or XRC SRQ(s) on the domain: "
                        + users(x.context(), h -> usesXrcd(h, x)) + "; destroy them (destroyQp unregisters) first");
            }
            XrcDomain domain = x.domain;
            if (--domain.opens == 0) {
                d.domainGone(domain);
            }
            x.context().release(x);
            x.markDestroyed();
        });
    }

    // ---- completion channels and CQs ------------------------------------------------------------

    @Override
    public CompChannelHandle createCompChannel(ContextHandle context) {
        SimContext ctx = own(context, SimContext.class);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_create_comp_channel", ctx.describe());
            d.allocate(ResourceKind.COMP_CHANNEL, "ibv_create_comp_channel", ctx.describe());
            SimCompChannel channel = new SimCompChannel(ctx, d.nextId(ResourceKind.COMP_CHANNEL),
                    descriptors.openChannel());
            ctx.adopt(channel);
            return channel;
        });
    }

    /** libibverbs refuses while CQs were created on the channel ({@code channel->refcnt}), even after a fatal error. */
    @Override
    public void destroyCompChannel(CompChannelHandle channel) {
        SimCompChannel ch = own(channel, SimCompChannel.class);
        SimDevice d = ch.device;
        locked(d, () -> {
            ch.requireUsable();
            if (ch.refcnt > 0) {
                throw new VerbsException("ibv_destroy_comp_channel", ch.describe(), Errno.EBUSY, ch.refcnt
                        + " CQ(s) were created on this channel: " + users(ch.context(), h -> h instanceof SimCq cq
                                && cq.channel == ch) + "; destroy them first");
            }
            descriptors.closeChannel(ch.fd());
            ch.events.clear();
            d.free(ResourceKind.COMP_CHANNEL);
            ch.context().release(ch);
            ch.markDestroyed();
            ch.eventArrived.signalAll();
        });
    }

    @Override
    public CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector) {
        SimContext ctx = own(context, SimContext.class);
        SimCompChannel ch = channel == null ? null : own(channel, SimCompChannel.class);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_create_cq", ctx.describe());
            if (ch != null && ch.context() != ctx) {
                // Assumed EINVAL: the kernel looks the channel up among this context's objects.
                throw new VerbsException("ibv_create_cq", ctx.describe(), Errno.EINVAL, ch.describe()
                        + " belongs to another context; create the channel in this one");
            }
            int vectors = d.profile.attributes().numCompVectors();
            if (compVector < 0 || compVector >= vectors) {
                throw new VerbsException("ibv_create_cq", ctx.describe(), Errno.EINVAL, "completion vector "
                        + compVector + " does not exist: " + d.name() + " has num_comp_vectors " + vectors
                        + " (valid 0.." + (vectors - 1) + ")");
            }
            int maxCqe = d.profile.attributes().maxCqe();
            if (cqe < 1 || cqe > maxCqe) {
                throw new VerbsException("ibv_create_cq", ctx.describe(), Errno.EINVAL, "cqe " + cqe
                        + " is outside 1.." + maxCqe + " (max_cqe of " + d.name() + ")");
            }
            d.allocate(ResourceKind.CQ, "ibv_create_cq", ctx.describe());
            SimCq cq = new SimCq(ctx, d.nextId(ResourceKind.CQ), Driver.queueSlots(cqe), ch);
            if (ch != null) {
                ch.refcnt++;
            }
            ctx.adopt(cq);
            return cq;
        });
    }

    /**
     * {@code ibv_destroy_cq}: EBUSY while QPs or XRC SRQs use the CQ. Otherwise the kernel object goes,
     * and then - like libibverbs' {@code ibv_cmd_destroy_cq} - this call BLOCKS until every completion
     * event {@link #getCqEvent} returned for the CQ has been acknowledged with {@link #ackCqEvents}, by
     * this or another thread. Events still queued on the channel and not yet returned are discarded.
     *
     * <p>The wait is interruptible (libibverbs' is not): an interrupt ends it with EINTR, the interrupt
     * flag set again, and the handle left alive but usable only for {@link #ackCqEvents} and another
     * {@code destroyCq}, which resumes the wait. After a fatal device error it does not wait.
     */
    @Override
    public void destroyCq(CqHandle cq) {
        SimCq c = identify(cq, SimCq.class);
        requireNotDestroyed(c);
        SimDevice d = c.device;
        d.lock.lock();
        try {
            requireNotDestroyed(c);
            if (!c.kernelGone) {
                if (!d.fatal && c.usecnt > 0) {
                    throw new VerbsException("ibv_destroy_cq", c.describe(), Errno.EBUSY, "still used by "
                            + c.usecnt + " QP queue(s) or XRC SRQ(s): " + users(c.context(), h -> usesCq(h, c))
                            + "; destroy them first");
                }
                c.kernelGone = true;
                c.entries.clear();
                if (c.channel != null) {
                    c.channel.events.removeIf(e -> e == c);
                }
                d.free(ResourceKind.CQ);
            }
            while (!d.fatal && c.eventsAcked != c.eventsDelivered) {
                try {
                    c.acked.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new VerbsException("ibv_destroy_cq", c.describe(), Errno.EINTR, "interrupted while waiting"
                            + " for " + (c.eventsDelivered - c.eventsAcked) + " completion event(s) to be"
                            + " acknowledged (ibv_ack_cq_events); the CQ is gone from the device, call destroyCq"
                            + " again after acknowledging them");
                }
            }
            if (c.channel != null) {
                c.channel.refcnt--;
            }
            c.context().release(c);
            c.markDestroyed();
        } finally {
            d.lock.unlock();
        }
    }

    @Override
    public void reqNotifyCq(CqHandle cq, boolean solicitedOnly) {
        SimCq c = own(cq, SimCq.class);
        SimDevice d = c.device;
        locked(d, () -> {
            c.requireUsable();
            d.requireAlive("ibv_req_notify_cq", c.describe());
            // rxe_req_notify_cq: a request for the next completion is not weakened to solicited-only.
            if (!solicitedOnly) {
                c.arm = SimCq.Arm.NEXT;
            } else if (c.arm != SimCq.Arm.NEXT) {
                c.arm = SimCq.Arm.SOLICITED;
            }
        });
    }

    /** Works after a fatal device error too: polling reads user-mapped memory, no system call. */
    @Override
    public int pollCq(CqHandle cq, WorkCompletions completions, int max) {
        SimCq c = own(cq, SimCq.class);
        if (!(completions instanceof SimWorkCompletions wc) || wc.provider != this) {
            throw new IllegalArgumentException("work completions must come from this provider's newWorkCompletions");
        }
        wc.requireOpen();
        if (max < 0 || max > wc.capacity()) {
            throw new IllegalArgumentException("max must be 0.." + wc.capacity() + " (the buffer's capacity), was "
                    + max);
        }
        SimDevice d = c.device;
        return locked(d, () -> {
            c.requireUsable();
            int n = 0;
            while (n < max && !c.entries.isEmpty()) {
                wc.set(n++, c.entries.pollFirst());
            }
            return n;
        });
    }

    @Override
    public WorkCompletions newWorkCompletions(int capacity) {
        return new SimWorkCompletions(this, capacity);
    }

    /** Negative {@code timeoutMillis} waits without limit, like {@code poll(2)}. */
    @Override
    public @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis) {
        SimCompChannel ch = own(channel, SimCompChannel.class);
        SimDevice d = ch.device;
        long remaining = TimeUnit.MILLISECONDS.toNanos(Math.max(timeoutMillis, 0));
        d.lock.lock();
        try {
            while (true) {
                ch.requireUsable();
                SimCq cq = ch.events.pollFirst();
                if (cq != null) {
                    cq.eventsDelivered++;
                    return cq;
                }
                if (d.fatal) {
                    throw new VerbsException("ibv_get_cq_event", ch.describe(), Errno.EIO, "device " + d.name()
                            + " had a fatal error; no more completion events will come");
                }
                if (timeoutMillis >= 0 && remaining <= 0) {
                    return null;
                }
                try {
                    if (timeoutMillis < 0) {
                        ch.eventArrived.await();
                    } else {
                        remaining = ch.eventArrived.awaitNanos(remaining);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new VerbsException("ibv_get_cq_event", ch.describe(), Errno.EINTR,
                            "interrupted while waiting for a completion event");
                }
            }
        } finally {
            d.lock.unlock();
        }
    }

    /** Acknowledging more events than {@link #getCqEvent} returned and were not yet acknowledged is a caller bug. */
    @Override
    public void ackCqEvents(CqHandle cq, int count) {
        SimCq c = identify(cq, SimCq.class);
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        SimDevice d = c.device;
        locked(d, () -> {
            requireNotDestroyed(c);
            long outstanding = c.eventsDelivered - c.eventsAcked;
            if (count > outstanding) {
                throw new IllegalArgumentException("acknowledging " + count + " event(s) of " + c.describe()
                        + " but only " + outstanding + " were returned by getCqEvent and not yet acknowledged");
            }
            c.eventsAcked += count;
            c.acked.signalAll();
        });
    }

    // ---- shared receive queues ------------------------------------------------------------------

    @Override
    public SrqHandle createSrq(ContextHandle context, SrqInitSpec spec) {
        SimContext ctx = own(context, SimContext.class);
        Objects.requireNonNull(spec, "spec");
        SimPd pd = own(spec.pd(), SimPd.class);
        SimXrcd xrcd = spec.xrcd() == null ? null : own(spec.xrcd(), SimXrcd.class);
        SimCq cq = spec.cq() == null ? null : own(spec.cq(), SimCq.class);
        SimDevice d = ctx.device;
        String verb = spec.type() == SrqType.XRC ? "ibv_create_srq_ex" : "ibv_create_srq";
        return locked(d, () -> {
            d.requireAlive(verb, ctx.describe());
            sameContext(verb, ctx, pd);
            if (spec.type() == SrqType.XRC) {
                if (!d.profile.supportsXrc()) {
                    throw new VerbsException(verb, ctx.describe(), d.driver().xrcSrqUnsupported(), "device "
                            + d.name() + " does not support XRC; use a basic SRQ");
                }
                if (xrcd == null || cq == null) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL,
                            "an XRC SRQ needs an XRC domain and a CQ");
                }
                sameContext(verb, ctx, xrcd);
                sameContext(verb, ctx, cq);
            }
            DeviceAttributes a = d.profile.attributes();
            if (spec.maxWr() <= 0 || spec.maxWr() > a.maxSrqWr()) {
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "max_wr " + spec.maxWr()
                        + " is outside 1.." + a.maxSrqWr() + " (max_srq_wr)");
            }
            if (spec.maxSge() > a.maxSrqSge()) {
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "max_sge " + spec.maxSge()
                        + " is above max_srq_sge " + a.maxSrqSge());
            }
            d.allocate(ResourceKind.SRQ, verb, ctx.describe());
            boolean xrc = spec.type() == SrqType.XRC;
            int srqNum = xrc ? d.allocateSrqNum() : 0;
            SimSrq srq = new SimSrq(ctx, d.nextId(ResourceKind.SRQ), pd, spec.type(), xrc ? xrcd : null,
                    xrc ? cq : null, Driver.queueSlots(spec.maxWr()), Math.max(spec.maxSge(), 1), srqNum);
            pd.usecnt++;
            if (xrc) {
                cq.usecnt++;
                xrcd.usecnt++;
                d.xrcSrqs.put(srqNum, srq);
            }
            ctx.adopt(srq);
            return srq;
        });
    }

    @Override
    public void destroySrq(SrqHandle srq) {
        SimSrq s = own(srq, SimSrq.class);
        SimDevice d = s.device;
        onFabric(() -> {
            s.requireUsable();
            if (!d.fatal && s.usecnt > 0) {
                throw new VerbsException("ibv_destroy_srq", s.describe(), Errno.EBUSY, "still used by " + s.usecnt
                        + " QP(s): " + users(s.context(), h -> h instanceof SimQp q && q.qp.srq == s)
                        + "; destroy them first");
            }
            s.pd.usecnt--;
            if (s.cq != null) {
                s.cq.usecnt--;
            }
            if (s.xrcd != null) {
                s.xrcd.usecnt--;
                d.xrcSrqs.remove(s.srqNum());
            }
            s.queue.clear();
            d.free(ResourceKind.SRQ);
            s.context().release(s);
            s.markDestroyed();
            fabric.pumpStalled();
        });
    }

    @Override
    public void postSrqRecv(SrqHandle srq, RecvWr request) {
        SimSrq s = own(srq, SimSrq.class);
        SimRecvWr wr = ownRequest(request);
        onFabric(() -> {
            s.requireUsable();
            s.device.requireAlive("ibv_post_srq_recv", s.describe());
            if (wr.sgeCount() > s.maxSge) {
                throw new VerbsException("ibv_post_srq_recv", s.describe(), Errno.EINVAL, wr.sgeCount()
                        + " SGEs exceed the SRQ's max_sge " + s.maxSge);
            }
            if (s.queue.size() >= s.slots) {
                throw new VerbsException("ibv_post_srq_recv", s.describe(), Errno.ENOMEM, "the SRQ is full ("
                        + s.slots + " receive WRs posted and not consumed)");
            }
            s.queue.addLast(PostedRecv.of(wr));
            fabric.pumpStalled();
        });
    }

    // ---- queue pairs ----------------------------------------------------------------------------

    @Override
    public QpHandle createQp(ContextHandle context, QpInitSpec spec) {
        SimContext ctx = own(context, SimContext.class);
        Objects.requireNonNull(spec, "spec");
        QpType type = spec.type();
        boolean target = type == QpType.XRC_RECV;
        // The kernel ignores PD, CQs and SRQ of an XRC receive QP, and the SRQ of an XRC send QP.
        SimXrcd xrcd = spec.xrcd() == null || !target ? null : own(spec.xrcd(), SimXrcd.class);
        SimPd pd = spec.pd() == null || target ? null : own(spec.pd(), SimPd.class);
        SimCq sendCq = spec.sendCq() == null || target ? null : own(spec.sendCq(), SimCq.class);
        SimCq recvCq = spec.recvCq() == null || target || type == QpType.XRC_SEND ? null
                : own(spec.recvCq(), SimCq.class);
        SimSrq srq = spec.srq() == null || type.isXrc() ? null : own(spec.srq(), SimSrq.class);
        SimDevice d = ctx.device;
        String verb = "ibv_create_qp_ex";
        return locked(d, () -> {
            if (type.isXrc() && !d.profile.supportsXrc()) {
                throw new VerbsException(verb, ctx.describe(), Errno.EOPNOTSUPP, "device " + d.name()
                        + " does not support XRC QPs; use RC");
            }
            d.requireAlive(verb, ctx.describe());
            if (target) {
                if (xrcd == null) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "an XRC receive QP needs an XRC domain");
                }
                sameContext(verb, ctx, xrcd);
            } else {
                if (pd == null) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "a " + type + " QP needs a PD");
                }
                if (sendCq == null || (recvCq == null && type != QpType.XRC_SEND)) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "a " + type
                            + " QP needs a send CQ" + (type == QpType.XRC_SEND ? "" : " and a receive CQ"));
                }
                sameContext(verb, ctx, pd);
                sameContext(verb, ctx, sendCq);
                if (recvCq != null) {
                    sameContext(verb, ctx, recvCq);
                }
                if (srq != null) {
                    sameContext(verb, ctx, srq);
                    if (srq.type != SrqType.BASIC) {
                        throw new VerbsException(verb, ctx.describe(), Errno.EINVAL,
                                "only a basic SRQ can feed a QP; XRC SRQs are addressed by XRC senders");
                    }
                }
            }
            QpCapabilities requested = target ? new QpCapabilities(0, 0, 0, 0, 0)
                    : receiveless(spec.capabilities(), srq != null || type == QpType.XRC_SEND);
            checkCapabilities(verb, ctx, requested);
            d.allocate(ResourceKind.QP, verb, ctx.describe());
            int qpNum = d.allocateQpNum();
            QpCapabilities granted = target ? requested : d.driver().granted(requested);
            QueuePair qp = new QueuePair(d, type, qpNum, ctx, pd, sendCq, recvCq, srq, target ? xrcd.domain : null,
                    spec.signalAll(), granted, Driver.queueSlots(requested.maxSendWr()),
                    Driver.queueSlots(requested.maxRecvWr()));
            d.qps.put(qpNum, qp);
            if (pd != null) {
                pd.usecnt++;
            }
            if (sendCq != null) {
                sendCq.usecnt++;
            }
            if (recvCq != null) {
                recvCq.usecnt++;
            }
            if (srq != null) {
                srq.usecnt++;
            }
            SimQp handle = new SimQp(ctx, qp, xrcd, false);
            if (target) {
                // ibv_create_qp_ex of an XRC receive QP registers the creating process implicitly.
                xrcd.domain.receiveQps.put(qpNum, qp);
                xrcd.usecnt++;
            }
            qp.handles.add(handle);
            ctx.adopt(handle);
            return handle;
        });
    }

    private static QpCapabilities receiveless(QpCapabilities caps, boolean noReceiveQueue) {
        return noReceiveQueue ? new QpCapabilities(caps.maxSendWr(), 0, caps.maxSendSge(), 0, caps.maxInlineData())
                : caps;
    }

    private static void checkCapabilities(String verb, SimContext ctx, QpCapabilities caps) {
        SimDevice d = ctx.device;
        DeviceAttributes a = d.profile.attributes();
        String problem = null;
        if (caps.maxSendWr() > a.maxQpWr() || caps.maxRecvWr() > a.maxQpWr()) {
            problem = "max_send_wr/max_recv_wr " + caps.maxSendWr() + "/" + caps.maxRecvWr() + " above max_qp_wr "
                    + a.maxQpWr();
        } else if (caps.maxSendSge() > a.maxSge() || caps.maxRecvSge() > a.maxSge()) {
            problem = "max_send_sge/max_recv_sge " + caps.maxSendSge() + "/" + caps.maxRecvSge() + " above max_sge "
                    + a.maxSge();
        } else if (caps.maxInlineData() > d.profile.maxInlineData()) {
            problem = "max_inline_data " + caps.maxInlineData() + " above the device's " + d.profile.maxInlineData();
        }
        if (problem != null) {
            throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, problem + " of " + d.name());
        }
    }

    /** {@code ibv_open_qp}: registers this context with an XRC receive QP of the domain. */
    @Override
    public QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type) {
        SimContext ctx = own(context, SimContext.class);
        SimXrcd x = own(xrcd, SimXrcd.class);
        Objects.requireNonNull(type, "type");
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_open_qp", ctx.describe());
            sameContext("ibv_open_qp", ctx, x);
            if (type != QpType.XRC_RECV) {
                throw new VerbsException("ibv_open_qp", x.describe(), Errno.EINVAL, "only XRC receive QPs can be"
                        + " opened, not " + type);
            }
            QueuePair qp = x.domain.receiveQps.get(qpNum);
            if (qp == null || qp.destroyed) {
                throw new VerbsException("ibv_open_qp", x.describe(), Errno.EINVAL, "no XRC receive QP " + qpNum
                        + " in this XRC domain" + (d.qps.containsKey(qpNum) ? " (QP " + qpNum
                                + " exists but is not an XRC receive QP of this domain)" : ""));
            }
            SimQp handle = new SimQp(ctx, qp, x, true);
            qp.handles.add(handle);
            x.usecnt++;
            ctx.adopt(handle);
            return handle;
        });
    }

    /**
     * {@code ibv_destroy_qp}: EBUSY while the handle has multicast attachments. For an XRC receive QP it
     * drops this context's registration; the QP itself goes with the last one.
     */
    @Override
    public void destroyQp(QpHandle qp) {
        SimQp h = own(qp, SimQp.class);
        SimDevice d = h.device;
        onFabric(() -> {
            h.requireUsable();
            if (!d.fatal && !h.attachments.isEmpty()) {
                throw new VerbsException("ibv_destroy_qp", h.describe(), Errno.EBUSY, "still attached to multicast"
                        + " group(s) " + h.attachments.stream().map(a -> a.gid().toString())
                                .collect(Collectors.joining(", ")) + "; detach them first (ibv_detach_mcast)");
            }
            QueuePair q = h.qp;
            for (SimQp.Attachment a : List.copyOf(h.attachments)) {
                detach(h, a); // only after a fatal error: the kernel forgets them with the device
            }
            q.handles.remove(h);
            if (h.xrcd != null) {
                h.xrcd.usecnt--;
            }
            if (q.handles.isEmpty()) {
                destroyQueuePair(q);
            }
            h.context().release(h);
            h.markDestroyed();
            fabric.pumpStalled();
        });
    }

    private void destroyQueuePair(QueuePair q) {
        SimDevice d = q.device;
        q.destroyed = true;
        fabric.forget(q);
        d.qps.remove(q.qpNum);
        if (q.domain != null) {
            q.domain.receiveQps.remove(q.qpNum);
        }
        if (q.pd != null) {
            q.pd.usecnt--;
        }
        if (q.sendCq != null) {
            q.sendCq.usecnt--;
        }
        if (q.recvCq != null) {
            q.recvCq.usecnt--;
        }
        if (q.srq != null) {
            q.srq.usecnt--;
        }
        d.free(ResourceKind.QP);
    }

    /**
     * {@code ibv_modify_qp}, checked in the kernel's order: ports ({@code modify_qp} in uverbs), the
     * address vector (a RoCE path needs a GRH and a populated source GID), the transition table
     * ({@link QpTransitions}), then the driver's limits (path MTU, RDMA read depth). Entering ERR
     * flushes both queues with WR_FLUSH_ERR completions; entering RESET drops them.
     */
    @Override
    public void modifyQp(QpHandle qp, QpModification modification) {
        SimQp h = own(qp, SimQp.class);
        Objects.requireNonNull(modification, "modification");
        SimDevice d = h.device;
        String verb = "ibv_modify_qp";
        onFabric(() -> {
            h.requireUsable();
            d.requireAlive(verb, h.describe());
            QueuePair q = h.qp;
            QpModification m = modification;
            QpState current = q.state;
            QpState next = m.has(QpAttributeMask.STATE) ? m.state() : current;
            if (m.has(QpAttributeMask.PORT) && !d.hasPort(m.port())) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "port " + m.port() + " does not exist on "
                        + d.name() + " (ports 1.." + d.profile.ports().size() + ")");
            }
            AddressVector av = m.addressVector();
            if (m.has(QpAttributeMask.AV) && av != null) {
                if (!d.hasPort(av.portNumber())) {
                    throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the path's port " + av.portNumber()
                            + " does not exist on " + d.name());
                }
                if (next == QpState.RTR && av.portNumber() != q.port) {
                    throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the path leaves from port "
                            + av.portNumber() + " but the QP was bound to port " + q.port + " in RESET->INIT");
                }
                checkAddress(verb, h.describe(), d, av);
            }
            if (next == QpState.UNKNOWN
                    || !QpTransitions.allowed(current, next, q.type, m.maskBits())) {
                String rule = next == QpState.UNKNOWN ? null : QpTransitions.describe(current, next, q.type);
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, rule == null
                        ? "a " + q.type + " QP cannot go from " + current + " to " + next
                        : current + "->" + next + " of a " + q.type + " QP " + rule + "; the modification had "
                                + m.mask());
            }
            int port = m.has(QpAttributeMask.PORT) ? m.port() : q.port;
            if (m.has(QpAttributeMask.PATH_MTU) && d.hasPort(port)
                    && m.pathMtu().value() > d.profile.port(port).maxMtu().value()) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "path MTU " + m.pathMtu().bytes()
                        + " is above port " + port + "'s max MTU " + d.profile.port(port).maxMtu().bytes());
            }
            int maxAtomic = d.profile.attributes().maxQpRdAtom();
            if ((m.has(QpAttributeMask.MAX_QP_RD_ATOMIC) && m.maxRdAtomic() > maxAtomic)
                    || (m.has(QpAttributeMask.MAX_DEST_RD_ATOMIC) && m.maxDestRdAtomic() > maxAtomic)) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "RDMA read/atomic depth above the"
                        + " device's max_qp_rd_atom " + maxAtomic);
            }
            q.apply(m);
            switch (next) {
                case RESET -> fabric.reset(q);
                case ERR -> fabric.moveToError(q);
                case RTS -> fabric.pump(q);
                default -> {
                }
            }
            fabric.pumpStalled();
        });
    }

    @Override
    public QpAttributes queryQp(QpHandle qp) {
        SimQp h = own(qp, SimQp.class);
        SimDevice d = h.device;
        return onFabric(() -> {
            h.requireUsable();
            d.requireAlive("ibv_query_qp", h.describe());
            return h.qp.attributes();
        });
    }

    /**
     * {@code ibv_post_send}. Before RTS it fails with EINVAL as on rxe: the WQE is written to the
     * user-mapped queue, but the doorbell system call finds the requester not ready and returns EINVAL,
     * and the WR never runs (observed). In ERR (or SQE) the WR is accepted and flushed.
     */
    @Override
    public void postSend(QpHandle qp, SendWr request) {
        SimQp h = own(qp, SimQp.class);
        SimSendWr wr = ownRequest(request);
        AhHandle addressHandle = wr.addressHandle();
        SimDevice d = h.device;
        String verb = "ibv_post_send";
        onFabric(() -> {
            h.requireUsable();
            d.requireAlive(verb, h.describe());
            QueuePair q = h.qp;
            if (q.type == QpType.XRC_RECV) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "an XRC receive QP has no send queue;"
                        + " send from an XRC send QP");
            }
            if (q.state == QpState.RESET || q.state == QpState.INIT || q.state == QpState.RTR) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the QP is in " + q.state
                        + "; it can send only in RTS (modify it RTR->RTS first)");
            }
            int sges = wr.sgeCount();
            if (sges > q.reported.maxSendSge()) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, sges + " SGEs exceed max_send_sge "
                        + q.reported.maxSendSge());
            }
            long length = 0;
            for (int i = 0; i < sges; i++) {
                length += Integer.toUnsignedLong(wr.sgeLength(i));
            }
            boolean inline = (wr.flags() & SendFlag.INLINE) != 0;
            if (inline && length > q.reported.maxInlineData()) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "inline data of " + length
                        + " bytes exceeds max_inline_data " + q.reported.maxInlineData());
            }
            SendOpcode op = wr.opcode();
            if ((op == SendOpcode.ATOMIC_CMP_AND_SWP || op == SendOpcode.ATOMIC_FETCH_AND_ADD)
                    && (length < 8 || (wr.remoteAddress() & 7) != 0)) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "an atomic needs an 8-byte local"
                        + " buffer and an 8-byte aligned remote address");
            }
            SimAh ah = null;
            if (q.type == QpType.UD) {
                if (addressHandle == null) {
                    throw new VerbsException(verb, h.describe(), Errno.EINVAL, "a UD send needs an address handle"
                            + " (SendWr.datagram)");
                }
                ah = own(addressHandle, SimAh.class);
                if (ah.device != d) {
                    throw new VerbsException(verb, h.describe(), Errno.EINVAL, ah.describe()
                            + " was created on another device");
                }
            }
            if (q.sendQueue.size() >= q.sendSlots) {
                throw new VerbsException(verb, h.describe(), Errno.ENOMEM, "the send queue is full ("
                        + q.sendSlots + " WRs outstanding)");
            }
            long[] addresses = new long[sges];
            int[] lengths = new int[sges];
            int[] lkeys = new int[sges];
            for (int i = 0; i < sges; i++) {
                addresses[i] = wr.sgeAddress(i);
                lengths[i] = wr.sgeLength(i);
                lkeys[i] = wr.sgeLkey(i);
            }
            byte[] inlineData = inline ? readInline(d, addresses, lengths) : null;
            PostedSend posted = new PostedSend(wr.wrId(), op, wr.flags(), addresses, lengths, lkeys, inlineData,
                    wr.immediateData(), wr.remoteAddress(), wr.rkey(), wr.compareAdd(), wr.swap(), ah,
                    wr.remoteQpn(), wr.remoteQkey(), wr.xrcRemoteSrqNum());
            fabric.submit(q, posted);
        });
    }

    /**
     * Inline data is copied from the caller's memory at post time and needs no MR. Registered memory is
     * read through its MR's segment; anything else through a raw view of the address, as libibverbs'
     * memcpy would read it (a bad address crashes here as it would there).
     */
    @SuppressWarnings("restricted")
    private static byte[] readInline(SimDevice d, long[] addresses, int[] lengths) {
        int total = 0;
        for (int length : lengths) {
            total += length;
        }
        byte[] data = new byte[total];
        int offset = 0;
        for (int i = 0; i < addresses.length; i++) {
            int length = lengths[i];
            if (length == 0) {
                continue;
            }
            long address = addresses[i];
            MemorySegment source = d.mrs.values().stream().filter(mr -> !mr.isDestroyed() && mr.covers(address, length))
                    .findFirst().map(mr -> mr.slice(address, length))
                    .orElseGet(() -> MemorySegment.ofAddress(address).reinterpret(length));
            MemorySegment.copy(source, ValueLayout.JAVA_BYTE, 0, data, offset, length);
            offset += length;
        }
        return data;
    }

    /**
     * {@code ibv_post_recv}: EINVAL in RESET (rdma-core's rxe checks {@code qp->state}), for a QP
     * receiving through an SRQ, and for XRC QPs (no receive queue). Posted in ERR it is queued and, on
     * rxe 6.1, never flushed (see {@link Driver#flushesReceivesPostedInError()}).
     */
    @Override
    public void postRecv(QpHandle qp, RecvWr request) {
        SimQp h = own(qp, SimQp.class);
        SimRecvWr wr = ownRequest(request);
        SimDevice d = h.device;
        String verb = "ibv_post_recv";
        onFabric(() -> {
            h.requireUsable();
            d.requireAlive(verb, h.describe());
            QueuePair q = h.qp;
            if (q.type.isXrc()) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "XRC QPs have no receive queue; post to"
                        + " the XRC SRQ");
            }
            if (q.srq != null) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "this QP receives through "
                        + q.srq.describe() + "; post there (postSrqRecv)");
            }
            if (q.state == QpState.RESET) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the QP is in RESET; move it to INIT first");
            }
            if (wr.sgeCount() > q.reported.maxRecvSge()) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, wr.sgeCount() + " SGEs exceed max_recv_sge "
                        + q.reported.maxRecvSge());
            }
            if (q.recvQueue.size() >= q.recvSlots) {
                throw new VerbsException(verb, h.describe(), Errno.ENOMEM, "the receive queue is full ("
                        + q.recvSlots + " WRs posted and not consumed)");
            }
            q.recvQueue.addLast(PostedRecv.of(wr));
            if (q.state == QpState.ERR && d.driver().flushesReceivesPostedInError()) {
                fabric.flushReceive(q);
            }
            fabric.pumpStalled();
        });
    }

    @Override
    public SendWr newSendWr(int maxSge) {
        return new SimSendWr(this, maxSge);
    }

    @Override
    public RecvWr newRecvWr(int maxSge) {
        return new SimRecvWr(this, maxSge);
    }

    /**
     * {@code ibv_attach_mcast}: a UD QP and a multicast GID ({@code ff00::/8}); on InfiniBand ports the
     * LID must be a multicast LID. Attaching the same (GID, LID) twice succeeds once.
     */
    @Override
    public void attachMcast(QpHandle qp, Gid gid, int lid) {
        SimQp h = own(qp, SimQp.class);
        Objects.requireNonNull(gid, "gid");
        SimDevice d = h.device;
        String verb = "ibv_attach_mcast";
        locked(d, () -> {
            h.requireUsable();
            d.requireAlive(verb, h.describe());
            SimQp.Attachment attachment = new SimQp.Attachment(gid, lid);
            if (h.attachments.contains(attachment)) {
                return;
            }
            QueuePair q = h.qp;
            if (!gid.isMulticast() || q.type != QpType.UD || !validMulticastLid(q, lid)) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, q.type != QpType.UD
                        ? "only UD QPs join multicast groups, this is " + q.type
                        : !gid.isMulticast() ? gid + " is not a multicast GID (ff00::/8)"
                        : "LID " + lid + " is not a multicast LID (0xc000..0xfffe) on an InfiniBand port");
            }
            DeviceAttributes a = d.profile.attributes();
            Set<QueuePair> members = d.multicastGroups.get(gid);
            if (members == null && d.multicastGroups.size() >= a.maxMcastGrp()) {
                throw new VerbsException(verb, h.describe(), Errno.ENOMEM, d.name() + " already has "
                        + a.maxMcastGrp() + " multicast groups (max_mcast_grp)");
            }
            if (members != null && !members.contains(q) && members.size() >= a.maxMcastQpAttach()) {
                throw new VerbsException(verb, h.describe(), Errno.ENOMEM, "group " + gid + " already has "
                        + a.maxMcastQpAttach() + " QPs (max_mcast_qp_attach)");
            }
            d.multicastGroups.computeIfAbsent(gid, g -> new LinkedHashSet<>()).add(q);
            h.attachments.add(attachment);
        });
    }

    @Override
    public void detachMcast(QpHandle qp, Gid gid, int lid) {
        SimQp h = own(qp, SimQp.class);
        Objects.requireNonNull(gid, "gid");
        SimDevice d = h.device;
        locked(d, () -> {
            h.requireUsable();
            d.requireAlive("ibv_detach_mcast", h.describe());
            SimQp.Attachment attachment = new SimQp.Attachment(gid, lid);
            if (!h.attachments.contains(attachment)) {
                throw new VerbsException("ibv_detach_mcast", h.describe(), Errno.EINVAL, "not attached to " + gid
                        + " with LID " + lid);
            }
            detach(h, attachment);
        });
    }

    private static void detach(SimQp h, SimQp.Attachment attachment) {
        h.attachments.remove(attachment);
        boolean stillMember = h.qp.handles.stream()
                .anyMatch(other -> other.attachments.stream().anyMatch(a -> a.gid().equals(attachment.gid())));
        if (!stillMember) {
            Map<Gid, Set<QueuePair>> groups = h.device.multicastGroups;
            Set<QueuePair> members = groups.get(attachment.gid());
            if (members != null) {
                members.remove(h.qp);
                if (members.isEmpty()) {
                    groups.remove(attachment.gid());
                }
            }
        }
    }

    /** The kernel's {@code is_valid_mcast_lid}: LIDs only matter on InfiniBand ports. */
    private static boolean validMulticastLid(QueuePair q, int lid) {
        SimDevice d = q.device;
        boolean infiniband;
        if (q.state != QpState.RESET && d.hasPort(q.port)) {
            infiniband = d.profile.port(q.port).linkLayer() == LinkLayer.INFINIBAND;
        } else {
            infiniband = d.profile.ports().stream().allMatch(p -> p.linkLayer() == LinkLayer.INFINIBAND);
        }
        return !infiniband || (lid >= 0xc000 && lid != 0xffff);
    }

    // ---- memory regions and address handles -----------------------------------------------------

    /**
     * {@code ibv_reg_mr}: the kernel's {@code ib_check_mr_access} (remote write or atomic need local
     * write), zero length is EINVAL ({@code ib_umem_get}), heap memory cannot be registered at all. Data
     * movement later reads and writes through this segment, so its arena must stay open and be
     * accessible from the posting threads (shared or global arenas).
     */
    @Override
    public MrHandle regMr(PdHandle pd, MemorySegment buffer, int access) {
        SimPd p = own(pd, SimPd.class);
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered; " + buffer
                    + " is on the Java heap (allocate it from an Arena)");
        }
        SimDevice d = p.device;
        String verb = "ibv_reg_mr";
        return locked(d, () -> {
            p.requireUsable();
            d.requireAlive(verb, p.describe());
            if (buffer.byteSize() == 0) {
                throw new VerbsException(verb, p.describe(), Errno.EINVAL, "cannot register zero bytes");
            }
            int known = 0;
            for (AccessFlag flag : AccessFlag.values()) {
                known |= flag.bit();
            }
            if ((access & ~known) != 0) {
                throw new VerbsException(verb, p.describe(), Errno.EINVAL, "unknown access bits 0x"
                        + Integer.toHexString(access & ~known));
            }
            int localWrite = AccessFlag.LOCAL_WRITE.bit();
            if ((access & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                    && (access & localWrite) == 0) {
                throw new VerbsException(verb, p.describe(), Errno.EINVAL,
                        "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE as well");
            }
            if ((access & AccessFlag.ON_DEMAND.bit()) != 0 && !d.profile.onDemandPaging()) {
                throw new VerbsException(verb, p.describe(), d.driver().onDemandPagingUnsupported(), d.name()
                        + " does not support on-demand paging");
            }
            d.allocate(ResourceKind.MR, verb, p.describe());
            int lkey = d.allocateKey();
            SimMr mr = new SimMr(p.context(), d.nextId(ResourceKind.MR), p, buffer, access, lkey,
                    d.driver().rkey(lkey, access));
            d.mrs.put(lkey, mr);
            p.usecnt++;
            p.context().adopt(mr);
            return mr;
        });
    }

    @Override
    public void deregMr(MrHandle mr) {
        SimMr m = own(mr, SimMr.class);
        SimDevice d = m.device;
        locked(d, () -> {
            m.requireUsable();
            d.mrs.remove(m.lkey());
            m.pd.usecnt--;
            d.free(ResourceKind.MR);
            m.context().release(m);
            m.markDestroyed();
        });
    }

    @Override
    public AhHandle createAh(PdHandle pd, AddressVector address) {
        SimPd p = own(pd, SimPd.class);
        Objects.requireNonNull(address, "address");
        SimDevice d = p.device;
        return locked(d, () -> {
            p.requireUsable();
            d.requireAlive("ibv_create_ah", p.describe());
            checkAddress("ibv_create_ah", p.describe(), d, address);
            d.allocate(ResourceKind.AH, "ibv_create_ah", p.describe());
            SimAh ah = new SimAh(p.context(), d.nextId(ResourceKind.AH), p, address);
            p.usecnt++;
            p.context().adopt(ah);
            return ah;
        });
    }

    @Override
    public void destroyAh(AhHandle ah) {
        SimAh a = own(ah, SimAh.class);
        SimDevice d = a.device;
        locked(d, () -> {
            a.requireUsable();
            a.pd.usecnt--;
            d.free(ResourceKind.AH);
            a.context().release(a);
            a.markDestroyed();
        });
    }

    /**
     * {@code rdma_check_ah_attr} and {@code rdma_get_gid_attr}: the port exists, a RoCE port needs a GRH,
     * the source GID index is inside the table (EINVAL) and populated (ENODATA).
     */
    private static void checkAddress(String verb, String resource, SimDevice d, AddressVector av) {
        if (!d.hasPort(av.portNumber())) {
            throw new VerbsException(verb, resource, Errno.EINVAL, "port " + av.portNumber() + " does not exist on "
                    + d.name());
        }
        DeviceProfile.Port port = d.profile.port(av.portNumber());
        var route = av.globalRoute();
        if (route == null) {
            if (port.linkLayer() == LinkLayer.ETHERNET) {
                throw new VerbsException(verb, resource, Errno.EINVAL, "a RoCE address needs a GRH (a destination"
                        + " GID): use AddressVector.roce");
            }
            return;
        }
        if (route.sourceGidIndex() >= port.gidTableLength()) {
            throw new VerbsException(verb, resource, Errno.EINVAL, "source GID index " + route.sourceGidIndex()
                    + " is outside the table of " + port.gidTableLength());
        }
        if (port.gid(route.sourceGidIndex()).isZero()) {
            throw new VerbsException(verb, resource, ENODATA, "source GID index " + route.sourceGidIndex()
                    + " of port " + av.portNumber() + " is empty; GIDs in use: " + port.gids());
        }
    }

    // ---- async events ---------------------------------------------------------------------------

    /**
     * Negative {@code timeoutMillis} waits without limit. After a fatal device error the queued events
     * (DEVICE_FATAL among them) are still returned; then EIO.
     */
    @Override
    public @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis) {
        SimContext ctx = own(context, SimContext.class);
        AsyncEventRecord event = ctx.asyncEvents.poll();
        if (event != null) {
            return event;
        }
        if (ctx.device.fatal) {
            throw new VerbsException("ibv_get_async_event", ctx.describe(), Errno.EIO, "device " + ctx.device.name()
                    + " had a fatal error and its event queue is drained");
        }
        try {
            event = timeoutMillis < 0 ? ctx.asyncEvents.take()
                    : ctx.asyncEvents.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("ibv_get_async_event", ctx.describe(), Errno.EINTR,
                    "interrupted while waiting for an async event");
        }
        return event;
    }

    // ---- simulation hooks -------------------------------------------------------------------------

    /**
     * Changes a port's state, as a cable pull or {@code ip link set down} would: {@code ibv_query_port}
     * reports it, every open context of the device gets IBV_EVENT_PORT_ERR (leaving ACTIVE) or
     * IBV_EVENT_PORT_ACTIVE (entering it), and traffic through a port that is not ACTIVE is lost (RC
     * requesters fail with RETRY_EXC_ERR).
     */
    public void setPortState(String deviceName, int port, PortState state) {
        SimDevice d = device(deviceName);
        Objects.requireNonNull(state, "state");
        if (!d.hasPort(port)) {
            throw new IllegalArgumentException(deviceName + " has no port " + port);
        }
        onFabric(() -> {
            PortState old = d.portState(port);
            d.portState(port, state);
            if (old == PortState.ACTIVE && state != PortState.ACTIVE) {
                d.broadcast(new AsyncEventRecord(AsyncEventType.PORT_ERR, null, port));
            } else if (old != PortState.ACTIVE && state == PortState.ACTIVE) {
                d.broadcast(new AsyncEventRecord(AsyncEventType.PORT_ACTIVE, null, port));
            }
            fabric.pumpStalled();
        });
    }

    /**
     * Kills a device, as a firmware fatal error or a hot unplug does: every open context gets
     * IBV_EVENT_DEVICE_FATAL; its QPs move to the error state and flush their WRs (as mlx5 does in its
     * internal-error state); from then on every verb on the device fails with EIO except the destroys,
     * which succeed without their EBUSY checks (rdma-core treats EIO from a destroy as success after a
     * disassociation). {@code ibv_destroy_comp_channel} keeps libibverbs' own CQ check.
     */
    public void injectDeviceFatal(String deviceName) {
        SimDevice d = device(deviceName);
        onFabric(() -> {
            if (d.fatal) {
                return;
            }
            d.fatal = true;
            d.broadcast(new AsyncEventRecord(AsyncEventType.DEVICE_FATAL, null, 0));
            for (QueuePair q : List.copyOf(d.qps.values())) {
                if (q.state != QpState.RESET && q.state != QpState.ERR) {
                    fabric.moveToError(q);
                }
            }
            for (SimContext ctx : d.contexts) {
                for (SimHandle child : ctx.children()) {
                    if (child instanceof SimCompChannel ch) {
                        ch.eventArrived.signalAll();
                    } else if (child instanceof SimCq cq) {
                        cq.acked.signalAll();
                    }
                }
            }
            fabric.pumpStalled();
        });
    }

    /** Whether {@link #injectDeviceFatal} was called for the device. */
    public boolean isFatal(String deviceName) {
        return device(deviceName).fatal;
    }

    /** The device's live kernel objects, like {@code rdma resource show}. */
    public ResourceCounts resourceCounts(String deviceName) {
        SimDevice d = device(deviceName);
        return locked(d, d::counts);
    }

    /** Objects left alive by {@code ibv_close_device}, on all devices, oldest first. */
    public List<LeakedObject> leakedObjects() {
        List<LeakedObject> all = new ArrayList<>();
        for (SimDevice d : devices) {
            locked(d, () -> all.addAll(d.leaks));
        }
        return List.copyOf(all);
    }

    // ---- handle checks and locking ---------------------------------------------------------------

    private SimDevice device(String name) {
        SimDevice d = byName.get(Objects.requireNonNull(name, "deviceName"));
        if (d == null) {
            throw new IllegalArgumentException("no device " + name + " in this provider; it has " + byName.keySet());
        }
        return d;
    }

    /** Refuses (IllegalArgumentException) a handle this provider did not create, or of another kind. */
    private <T extends SimHandle> T identify(Handle handle, Class<T> type) {
        Objects.requireNonNull(handle, "handle");
        if (!(handle instanceof SimHandle sim) || sim.provider != this) {
            throw new IllegalArgumentException(handle.describe() + " was not created by this simulated provider");
        }
        if (!type.isInstance(handle)) {
            throw new IllegalArgumentException(handle.describe() + " is not a " + type.getSimpleName());
        }
        return type.cast(handle);
    }

    /** {@link #identify}, then refuses (IllegalStateException) a destroyed handle or one of a closed context. */
    private <T extends SimHandle> T own(Handle handle, Class<T> type) {
        T sim = identify(handle, type);
        sim.requireUsable();
        return sim;
    }

    private static void requireNotDestroyed(SimCq cq) {
        if (cq.isDestroyed()) {
            throw new IllegalStateException(cq.describe() + " was already destroyed");
        }
        if (cq.context().isDestroyed()) {
            throw new IllegalStateException(cq.describe() + " belongs to a closed context");
        }
    }

    private SimRecvWr ownRequest(RecvWr request) {
        Objects.requireNonNull(request, "request");
        if (!(request instanceof SimRecvWr wr) || wr.provider != this) {
            throw new IllegalArgumentException("receive requests must come from this provider's newRecvWr");
        }
        if (wr.isClosed()) {
            throw new IllegalStateException("this receive request was closed");
        }
        return wr;
    }

    private SimSendWr ownRequest(SendWr request) {
        Objects.requireNonNull(request, "request");
        if (!(request instanceof SimSendWr wr) || wr.provider != this) {
            throw new IllegalArgumentException("send requests must come from this provider's newSendWr");
        }
        if (wr.isClosed()) {
            throw new IllegalStateException("this send request was closed");
        }
        return wr;
    }

    private static void requirePort(String verb, SimContext ctx, int port) {
        if (!ctx.device.hasPort(port)) {
            throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "port " + port + " does not exist on "
                    + ctx.device.name() + " (ports 1.." + ctx.device.profile.ports().size() + ")");
        }
    }

    /** The kernel looks handles up among the calling context's objects: another context's is not found. */
    private static void sameContext(String verb, SimContext ctx, SimHandle handle) {
        if (handle.context() != ctx) {
            throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, handle.describe()
                    + " belongs to " + handle.context().describe() + ", not to this context");
        }
    }

    private static boolean usesPd(SimHandle h, SimPd pd) {
        return (h instanceof SimQp q && q.qp.pd == pd && !q.opened) || (h instanceof SimSrq s && s.pd == pd)
                || (h instanceof SimMr m && m.pd == pd) || (h instanceof SimAh a && a.pd == pd);
    }

    private static boolean usesXrcd(SimHandle h, SimXrcd x) {
        return (h instanceof SimQp q && q.xrcd == x) || (h instanceof SimSrq s && s.xrcd == x);
    }

    private static boolean usesCq(SimHandle h, SimCq cq) {
        return (h instanceof SimQp q && (q.qp.sendCq == cq || q.qp.recvCq == cq)) || (h instanceof SimSrq s && s.cq == cq);
    }

    /** Up to five users of an object among its context's objects, for an actionable EBUSY message. */
    private static String users(SimContext ctx, Predicate<SimHandle> uses) {
        List<String> found = ctx.children().stream().filter(uses).map(SimHandle::describe).toList();
        if (found.isEmpty()) {
            return "(objects of other or closed contexts)";
        }
        return found.size() <= 5 ? String.join(", ", found)
                : String.join(", ", found.subList(0, 5)) + " and " + (found.size() - 5) + " more";
    }

    private static <T> T locked(SimDevice d, Supplier<T> action) {
        d.lock.lock();
        try {
            return action.get();
        } finally {
            d.lock.unlock();
        }
    }

    private static void locked(SimDevice d, Runnable action) {
        d.lock.lock();
        try {
            action.run();
        } finally {
            d.lock.unlock();
        }
    }

    private <T> T onFabric(Supplier<T> action) {
        fabric.lockAll();
        try {
            return action.get();
        } finally {
            fabric.unlockAll();
        }
    }

    private void onFabric(Runnable action) {
        fabric.lockAll();
        try {
            action.run();
        } finally {
            fabric.unlockAll();
        }
    }
}
