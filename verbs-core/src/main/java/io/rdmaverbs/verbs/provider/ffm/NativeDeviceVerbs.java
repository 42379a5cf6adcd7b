package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.mtu;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.permissionHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.requirePort;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returned;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;

/**
 * The device verbs of {@link NativeVerbsProvider}: listing the devices, opening and closing a
 * context, and querying the device, its ports and their GIDs.
 */
final class NativeDeviceVerbs implements DeviceVerbs {

    private final NativeVerbsProvider provider;
    /* The provider's address -> handle maps: a closed context takes its CQs, QPs and SRQs with it. */
    private final NativeHandleIndex index;

    NativeDeviceVerbs(NativeVerbsProvider provider, NativeHandleIndex index) {
        this.provider = provider;
        this.index = index;
    }

    @Override
    public List<DeviceInfo> devices() {
        List<DeviceInfo> devices = new ArrayList<>();
        DeviceList.forEach((device, info) -> {
            devices.add(info);
            return false;
        });
        return List.copyOf(devices);
    }

    @Override
    public ContextHandle openDevice(DeviceInfo device) {
        MemorySegment state = CallState.current();
        List<String> present = new ArrayList<>();
        NativeContext[] opened = new NativeContext[1];
        DeviceList.forEach((pointer, info) -> {
            if (!info.name().equals(device.name())) {
                present.add(info.name());
                return false;
            }
            // Opened before the list is freed: an opened device outlives ibv_free_device_list.
            opened[0] = open(pointer, info, state);
            return true;
        });
        if (opened[0] != null) {
            return opened[0];
        }
        throw new VerbsException("ibv_open_device", device.name(), Errno.ENODEV, "no RDMA device named "
                + device.name() + " on this host" + (present.isEmpty()
                        ? ": there are none (is an RDMA driver loaded? for soft-RoCE: modprobe rdma_rxe; "
                                + "rdma link add rxe0 type rxe netdev <interface>)"
                        : "; devices present: " + present));
    }

    private NativeContext open(MemorySegment device, DeviceInfo info, MemorySegment state) {
        MemorySegment context = Libibverbs.ibv_open_device(state, device);
        if (isNull(context)) {
            int errno = errnoOfNull(state);
            throw new VerbsException("ibv_open_device", info.name(), Errno.of(errno),
                    "could not open " + info.name() + permissionHint(errno));
        }
        try {
            return handle(context, info, false, state);
        } catch (VerbsException e) {
            Libibverbs.ibv_close_device(state, context);
            throw e;
        }
    }

    /**
     * The handle on a context librdmacm opened ({@code id->verbs}): the same as an opened one, so the other
     * verb groups work on it, but never closed here. Its async descriptor is made non-blocking like an opened
     * context's; librdmacm never reads it.
     */
    NativeContext adopt(MemorySegment context) {
        MemorySegment device = IbvContext.DEVICE.get(context.reinterpret(IbvContext.LAYOUT.byteSize()));
        return handle(context, DeviceList.info(device), true, CallState.current());
    }

    /** Wraps {@code context}; on failure leaves it to the caller to close (an adopted one is not ours). */
    private NativeContext handle(MemorySegment context, DeviceInfo info, boolean adopted, MemorySegment state) {
        WakeDescriptor wake = WakeDescriptor.open(state, info.name());
        MemorySegment fields = context.reinterpret(IbvContext.LAYOUT.byteSize());
        NativeContext handle = new NativeContext(provider, context, info,
                IbvContext.NUM_COMP_VECTORS.get(fields), IbvContext.ASYNC_FD.get(fields), wake, adopted);
        // getAsyncEvent polls async_fd with a timeout, then reads; the read must never block.
        int errno = EventDescriptors.makeNonBlocking(handle.asyncFd(), state);
        if (errno != 0) {
            wake.close();
            throw new VerbsException("fcntl", handle.describe(), Errno.of(errno),
                    "could not make the async event descriptor of " + info.name() + " non-blocking");
        }
        return handle;
    }

    @Override
    public void closeDevice(ContextHandle context) {
        NativeContext c = provider.live(context, NativeContext.class);
        if (c.ownedByConnectionManager()) {
            throw new IllegalStateException(c.describe() + " (" + c.deviceName() + ") was opened by librdmacm for "
                    + "its CM ids (id->verbs, rdma_cm(7)), which owns it and keeps it open: it must never be closed "
                    + "with ibv_close_device");
        }
        MemorySegment state = CallState.current();
        released("ibv_close_device", c, Libibverbs.ibv_close_device(state, c.pointer()), state,
                "could not close " + c.deviceName(),
                "could not close " + c.deviceName());
        // Only now: a failed close leaves the context usable, and its waiters wakeable.
        c.wake().close();
        // Whatever the graph left behind is gone with the context; its addresses may be reused.
        index.forgetObjectsOf(c);
    }

    @Override
    public DeviceAttributes queryDevice(ContextHandle context) {
        NativeContext c = provider.live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvDeviceAttr.LAYOUT);
            int errno = returned(Libibverbs.ibv_query_device(state, c.pointer(), a), state);
            if (errno != 0) {
                throw failure("ibv_query_device", c, errno, "could not query " + c.deviceName());
            }
            return new DeviceAttributes(
                    Layouts.cString(a.asSlice(IbvDeviceAttr.FW_VER), IbvDeviceAttr.FW_VER_LENGTH),
                    IbvDeviceAttr.NODE_GUID.get(a),
                    IbvDeviceAttr.SYS_IMAGE_GUID.get(a),
                    IbvDeviceAttr.MAX_MR_SIZE.get(a),
                    IbvDeviceAttr.PAGE_SIZE_CAP.get(a),
                    IbvDeviceAttr.VENDOR_ID.get(a),
                    IbvDeviceAttr.VENDOR_PART_ID.get(a),
                    IbvDeviceAttr.HW_VER.get(a),
                    IbvDeviceAttr.MAX_QP.get(a),
                    IbvDeviceAttr.MAX_QP_WR.get(a),
                    IbvDeviceAttr.DEVICE_CAP_FLAGS.get(a),
                    IbvDeviceAttr.MAX_SGE.get(a),
                    IbvDeviceAttr.MAX_CQ.get(a),
                    IbvDeviceAttr.MAX_CQE.get(a),
                    IbvDeviceAttr.MAX_MR.get(a),
                    IbvDeviceAttr.MAX_PD.get(a),
                    IbvDeviceAttr.MAX_QP_RD_ATOM.get(a),
                    IbvDeviceAttr.MAX_QP_INIT_RD_ATOM.get(a),
                    IbvDeviceAttr.MAX_AH.get(a),
                    IbvDeviceAttr.MAX_SRQ.get(a),
                    IbvDeviceAttr.MAX_SRQ_WR.get(a),
                    IbvDeviceAttr.MAX_SRQ_SGE.get(a),
                    IbvDeviceAttr.MAX_MCAST_GRP.get(a),
                    IbvDeviceAttr.MAX_MCAST_QP_ATTACH.get(a),
                    Byte.toUnsignedInt(IbvDeviceAttr.PHYS_PORT_CNT.get(a)),
                    c.numCompVectors());
        }
    }

    @Override
    public PortAttributes queryPort(ContextHandle context, int port) {
        NativeContext c = provider.live(context, NativeContext.class);
        requirePort("ibv_query_port", c, port);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvPortAttr.LAYOUT);
            int errno = returned(InlineVerbs.ibv_query_port(state, c.pointer(), (byte) port, a), state);
            if (errno != 0) {
                throw failure("ibv_query_port", c, errno, Errno.of(errno).equals(Errno.EINVAL)
                        ? c.deviceName() + " has no port " + port + " (ports are numbered from 1 to phys_port_cnt)"
                        : "could not query port " + port + " of " + c.deviceName());
            }
            return new PortAttributes(
                    port,
                    PortState.of(IbvPortAttr.STATE.get(a)),
                    mtu(IbvPortAttr.MAX_MTU.get(a)),
                    mtu(IbvPortAttr.ACTIVE_MTU.get(a)),
                    IbvPortAttr.GID_TBL_LEN.get(a),
                    IbvPortAttr.PORT_CAP_FLAGS.get(a),
                    IbvPortAttr.MAX_MSG_SZ.get(a),
                    Short.toUnsignedInt(IbvPortAttr.PKEY_TBL_LEN.get(a)),
                    Short.toUnsignedInt(IbvPortAttr.LID.get(a)),
                    Short.toUnsignedInt(IbvPortAttr.SM_LID.get(a)),
                    Byte.toUnsignedInt(IbvPortAttr.LMC.get(a)),
                    Byte.toUnsignedInt(IbvPortAttr.ACTIVE_WIDTH.get(a)),
                    Byte.toUnsignedInt(IbvPortAttr.ACTIVE_SPEED.get(a)),
                    Byte.toUnsignedInt(IbvPortAttr.PHYS_STATE.get(a)),
                    LinkLayer.of(Byte.toUnsignedInt(IbvPortAttr.LINK_LAYER.get(a))));
        }
    }

    @Override
    public Gid queryGid(ContextHandle context, int port, int index) {
        NativeContext c = provider.live(context, NativeContext.class);
        requirePort("ibv_query_gid", c, port);
        if (index < 0) {
            throw failure("ibv_query_gid", c, Errno.EINVAL.number(), "GID index must be >= 0, was " + index);
        }
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gid = arena.allocate(Layouts.GID);
            int errno = returned(Libibverbs.ibv_query_gid(state, c.pointer(), (byte) port, index, gid), state);
            if (errno != 0) {
                throw failure("ibv_query_gid", c, errno, "could not read GID " + index + " of port " + port + " of "
                        + c.deviceName() + " (the index must be below gid_tbl_len of ibv_query_port)");
            }
            return Gid.of(gid.toArray(JAVA_BYTE));
        }
    }
}
