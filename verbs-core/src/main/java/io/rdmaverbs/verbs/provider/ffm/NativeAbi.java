package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.AtomicCapability;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.NodeType;
import io.rdmaverbs.verbs.attr.OpenFlags;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;

/**
 * Everything this binding assumes about the C ABI, as name/value pairs in the form
 * {@code src/test/c/verbs_abi.c} prints them from the real header: {@code sizeof(ibv_wc)},
 * {@code offsetof(ibv_wc, status)}, {@code sizeof(ibv_wc.status)} for every named member of every
 * layout the binding uses, and every constant it hard-codes or passes through from the model. The
 * members come from the very {@code StructLayout} constants the {@link Field} accessors are built
 * from, and the test generates the C program's list of members from them too, so neither side can
 * drift from the code: a width or offset the Java layout gets wrong differs from the header.
 */
final class NativeAbi {

    /** Every struct layout the binding reads or writes, by C struct name. */
    static final List<StructLayout> STRUCTS = List.of(
            IbvDevice.LAYOUT, IbvContextOps.LAYOUT, IbvContext.LAYOUT, VerbsContext.LAYOUT, IbvDeviceAttr.LAYOUT,
            IbvPortAttr.LAYOUT, IbvGlobalRoute.LAYOUT, IbvAhAttr.LAYOUT, IbvWc.LAYOUT, IbvSge.LAYOUT,
            IbvSendWr.LAYOUT, IbvRecvWr.LAYOUT, IbvQpCap.LAYOUT, IbvQpInitAttrEx.LAYOUT, IbvQpAttr.LAYOUT,
            IbvQpOpenAttr.LAYOUT, IbvSrqAttr.LAYOUT, IbvSrqInitAttrEx.LAYOUT, IbvXrcdInitAttr.LAYOUT,
            IbvAsyncEvent.LAYOUT, IbvCompChannel.LAYOUT, IbvCq.LAYOUT, IbvQp.LAYOUT, IbvSrq.LAYOUT, IbvMr.LAYOUT,
            IbvXrcd.LAYOUT, PollFd.LAYOUT, IbvCqEx.LAYOUT, IbvCqInitAttrEx.LAYOUT,
            IbvQpEx.LAYOUT);

    /**
     * The librdmacm structs, checked against {@code <rdma/rdma_cma.h>} by {@code src/test/c/rdmacm_abi.c}
     * apart from the verbs ones, so that a host without librdmacm-dev still checks the verbs.
     */
    static final List<StructLayout> RDMA_CM_STRUCTS = List.of(
            RdmaEventChannel.LAYOUT, RdmaCmId.ADDR, RdmaCmId.ROUTE, RdmaCmId.LAYOUT, RdmaConnParam.LAYOUT,
            RdmaUdParam.LAYOUT, RdmaCmEvent.LAYOUT, SockaddrIn.LAYOUT, SockaddrIn6.LAYOUT, SockaddrStorage.LAYOUT);

    private NativeAbi() {
    }

    /**
     * A named member of a struct layout, at any depth: {@code path} is the C member designator
     * ({@code wr.ud.remote_qkey}; members of anonymous unions have no union in it, as in C).
     */
    record Member(String struct, String path, long offset, long size) {
    }

    /** The whole table: layouts first, then constants. */
    static SequencedMap<String, Long> entries() {
        return entries(STRUCTS);
    }

    /** The table for {@code structs} instead of {@link #STRUCTS}, with the same constants. */
    static SequencedMap<String, Long> entries(List<StructLayout> structs) {
        SequencedMap<String, Long> entries = layouts(structs);
        entries.putAll(constants());
        return entries;
    }

    /** The librdmacm table: {@link #RDMA_CM_STRUCTS}, then the constants of {@code <rdma/rdma_cma.h>}. */
    static SequencedMap<String, Long> rdmaCmEntries() {
        SequencedMap<String, Long> entries = layouts(RDMA_CM_STRUCTS);
        entries.putAll(rdmaCmConstants());
        return entries;
    }

    private static SequencedMap<String, Long> layouts(List<StructLayout> structs) {
        SequencedMap<String, Long> entries = new LinkedHashMap<>();
        for (StructLayout struct : structs) {
            String name = struct.name().orElseThrow();
            entries.put("sizeof(" + name + ")", struct.byteSize());
            for (Member m : members(struct)) {
                entries.put("offsetof(" + name + ", " + m.path() + ")", m.offset());
                entries.put("sizeof(" + name + "." + m.path() + ")", m.size());
            }
        }
        return entries;
    }

    /**
     * Named members, recursing into nested unions and structs that are not themselves in
     * {@link #STRUCTS} (those are checked on their own); unnamed groups are C's anonymous unions.
     */
    static List<Member> members(StructLayout struct) {
        List<Member> members = new ArrayList<>();
        members(struct.name().orElseThrow(), "", struct, 0, members);
        return members;
    }

    private static void members(String struct, String prefix, GroupLayout group, long base, List<Member> out) {
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long at = base + (group instanceof UnionLayout ? 0 : offset);
            offset += member.byteSize();
            if (member instanceof PaddingLayout) {
                continue;
            }
            if (member.name().isEmpty()) {
                if (member instanceof GroupLayout anonymous) {
                    members(struct, prefix, anonymous, at, out);
                }
                continue;
            }
            String path = prefix + member.name().get();
            out.add(new Member(struct, path, at, member.byteSize()));
            if (member instanceof GroupLayout nested && !isCheckedStruct(nested)) {
                members(struct, path + ".", nested, at, out);
            }
        }
    }

    private static boolean isCheckedStruct(GroupLayout layout) {
        return STRUCTS.stream().anyMatch(s -> s.withoutName().equals(layout.withoutName()));
    }

    private static Map<String, Long> rdmaCmConstants() {
        Map<String, Long> c = new LinkedHashMap<>();
        for (RdmaCmEventType t : RdmaCmEventType.values()) {
            c.put(t.cName(), (long) t.ordinal());
        }
        c.put("RDMA_PS_IPOIB", (long) RdmaCmId.RDMA_PS_IPOIB);
        c.put("RDMA_PS_TCP", (long) RdmaCmId.RDMA_PS_TCP);
        c.put("RDMA_PS_UDP", (long) RdmaCmId.RDMA_PS_UDP);
        c.put("RDMA_PS_IB", (long) RdmaCmId.RDMA_PS_IB);
        c.put("RDMA_UDP_QKEY", (long) RdmaCmId.RDMA_UDP_QKEY);
        c.put("RDMA_MAX_RESP_RES", (long) RdmaConnParam.RDMA_MAX_RESP_RES);
        c.put("RDMA_MAX_INIT_DEPTH", (long) RdmaConnParam.RDMA_MAX_INIT_DEPTH);
        c.put("AF_INET", (long) SockaddrIn.AF_INET);
        c.put("AF_INET6", (long) SockaddrIn6.AF_INET6);
        return c;
    }

    private static Map<String, Long> constants() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("__VERBS_ABI_IS_EXTENDED", VerbsContext.VERBS_ABI_IS_EXTENDED);
        c.put("IBV_SYSFS_NAME_MAX", (long) IbvDevice.IBV_SYSFS_NAME_MAX);
        c.put("IBV_SYSFS_PATH_MAX", (long) IbvDevice.IBV_SYSFS_PATH_MAX);
        c.put("IBV_QP_INIT_ATTR_PD", (long) IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD);
        c.put("IBV_QP_INIT_ATTR_XRCD", (long) IbvQpInitAttrEx.IBV_QP_INIT_ATTR_XRCD);
        c.put("IBV_SRQ_INIT_ATTR_TYPE", (long) IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE);
        c.put("IBV_SRQ_INIT_ATTR_PD", (long) IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD);
        c.put("IBV_SRQ_INIT_ATTR_XRCD", (long) IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_XRCD);
        c.put("IBV_SRQ_INIT_ATTR_CQ", (long) IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_CQ);
        c.put("IBV_SRQT_BASIC", (long) IbvSrqInitAttrEx.IBV_SRQT_BASIC);
        c.put("IBV_SRQT_XRC", (long) IbvSrqInitAttrEx.IBV_SRQT_XRC);
        c.put("IBV_QP_OPEN_ATTR_NUM", (long) IbvQpOpenAttr.IBV_QP_OPEN_ATTR_NUM);
        c.put("IBV_QP_OPEN_ATTR_XRCD", (long) IbvQpOpenAttr.IBV_QP_OPEN_ATTR_XRCD);
        c.put("IBV_QP_OPEN_ATTR_CONTEXT", (long) IbvQpOpenAttr.IBV_QP_OPEN_ATTR_CONTEXT);
        c.put("IBV_QP_OPEN_ATTR_TYPE", (long) IbvQpOpenAttr.IBV_QP_OPEN_ATTR_TYPE);
        c.put("IBV_XRCD_INIT_ATTR_FD", (long) IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_FD);
        c.put("IBV_XRCD_INIT_ATTR_OFLAGS", (long) IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_OFLAGS);
        c.put("IBV_DEVICE_XRC", (long) IbvDeviceAttr.IBV_DEVICE_XRC);
        c.put("IBV_DEVICE_XRC (DeviceAttributes.CAP_XRC)", (long) DeviceAttributes.CAP_XRC);
        c.put("IBV_ACCESS_OPTIONAL_RANGE", (long) NativeMrVerbs.IBV_ACCESS_OPTIONAL_RANGE);
        // Every errno the project names, not only those this binding acts on: a wrong number would
        // mislabel a failure (the simulator raises them all).
        for (Errno e : Errno.known()) {
            c.put(e.name(), (long) e.number());
        }
        c.put("O_RDONLY", (long) Libc.O_RDONLY);
        c.put("O_CREAT", (long) Libc.O_CREAT);
        c.put("O_EXCL", (long) Libc.O_EXCL);
        c.put("O_CREAT (OpenFlags.CREATE)", (long) OpenFlags.CREATE);
        c.put("O_EXCL (OpenFlags.EXCLUSIVE)", (long) OpenFlags.EXCLUSIVE);
        c.put("O_NONBLOCK", (long) Libc.O_NONBLOCK);
        c.put("F_GETFL", (long) Libc.F_GETFL);
        c.put("F_SETFL", (long) Libc.F_SETFL);
        c.put("POLLIN", (long) PollFd.POLLIN);
        c.put("EFD_NONBLOCK", (long) Libc.EFD_NONBLOCK);
        c.put("EFD_CLOEXEC", (long) Libc.EFD_CLOEXEC);
        // Values of the model that go to or come from libibverbs unchanged.
        for (QpType t : QpType.values()) {
            c.put("IBV_QPT_" + t.name(), (long) t.value());
        }
        for (SendOpcode o : SendOpcode.values()) {
            c.put("IBV_WR_" + o.name(), (long) o.value());
        }
        for (WcOpcode o : WcOpcode.values()) {
            if (o != WcOpcode.UNKNOWN) {
                c.put("IBV_WC_" + o.name(), (long) o.value());
            }
        }
        for (WcStatus s : WcStatus.values()) {
            c.put("IBV_WC_" + s.name(), (long) s.ordinal());
        }
        for (AccessFlag f : AccessFlag.values()) {
            c.put("IBV_ACCESS_" + f.name(), (long) f.bit());
        }
        for (QpAttributeMask m : QpAttributeMask.values()) {
            c.put("IBV_QP_" + m.name(), (long) m.bit());
        }
        for (QpState s : QpState.values()) {
            c.put("IBV_QPS_" + s.name(), (long) s.ordinal());
        }
        for (Mtu m : Mtu.values()) {
            c.put("IBV_" + m.name(), (long) m.value());
        }
        for (PortState s : PortState.values()) {
            c.put("IBV_PORT_" + s.name(), (long) s.ordinal());
        }
        for (LinkLayer l : LinkLayer.values()) {
            c.put("IBV_LINK_LAYER_" + l.name(), (long) l.ordinal());
        }
        for (NodeType n : NodeType.values()) {
            c.put("IBV_NODE_" + n.name(), (long) n.value());
        }
        for (AsyncEventType e : AsyncEventType.values()) {
            c.put("IBV_EVENT_" + e.name(), (long) e.ordinal());
        }
        c.put("IBV_SEND_FENCE", (long) SendFlag.FENCE);
        c.put("IBV_SEND_SIGNALED", (long) SendFlag.SIGNALED);
        c.put("IBV_SEND_SOLICITED", (long) SendFlag.SOLICITED);
        c.put("IBV_SEND_INLINE", (long) SendFlag.INLINE);
        c.put("IBV_WC_GRH", (long) WcFlag.GRH);
        c.put("IBV_WC_WITH_IMM", (long) WcFlag.WITH_IMM);
        c.put("IBV_WC_IP_CSUM_OK", (long) WcFlag.IP_CSUM_OK);
        c.put("IBV_WC_WITH_INV", (long) WcFlag.WITH_INV);
        for (CompletionField f : CompletionField.values()) {
            c.put("IBV_WC_EX_WITH_" + f.name(), (long) f.bit());
        }
        c.put("IBV_QP_INIT_ATTR_SEND_OPS_FLAGS", (long) IbvQpInitAttrEx.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
        for (SendOpcode o : SendOpcode.values()) {
            c.put("IBV_QP_EX_WITH_" + o.name() + " (1 << IBV_WR_" + o.name() + ")", 1L << o.value());
        }
        for (AtomicCapability a : AtomicCapability.values()) {
            c.put("IBV_ATOMIC_" + a.name(), (long) a.value());
        }
        return c;
    }
}
