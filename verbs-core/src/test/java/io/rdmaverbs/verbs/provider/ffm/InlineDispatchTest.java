package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.Deque;

import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.OpenFlags;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The static-inline verbs as {@code verbs.h} defines them, on a {@code struct verbs_context} built in
 * memory whose ops are Java upcalls: the container_of, ABI and size checks, the EOPNOTSUPP of a
 * missing op, the shortcuts to the exported verbs, and the arguments each op receives.
 */
class InlineDispatchTest {

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final DeviceVerbs deviceVerbs = provider.deviceVerbs();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final Arena arena = Arena.ofConfined();
    private final FakeVerbsContext device = new FakeVerbsContext(arena);
    private final NativeContext context = device.handle(provider, "rxe0");

    /* What the upcalls saw and will answer. */
    private long seenContext;
    private int seenCompMask;
    private int seenFd;
    private int seenOflags;
    private int seenQpType;
    private int seenQpNum;
    private long seenXrcd;
    private byte seenPort;
    private long seenSize;
    private final Deque<Integer> closeResults = new ArrayDeque<>();
    private MemorySegment created = MemorySegment.NULL;

    @AfterEach
    void freeFakeDevice() {
        arena.close();
    }

    @Test
    void anOpIsFoundBySteppingBackFromTheContextToItsVerbsContext() {
        device.op(VerbsContext.OPEN_XRCD, MemorySegment.ofAddress(0x1234_5678L));

        assertThat(VerbsContext.op(device.context(), VerbsContext.OPEN_XRCD).address()).isEqualTo(0x1234_5678L);
        assertThat(device.context().address() - VerbsContext.CONTEXT).as("container_of").isPositive();
    }

    @Test
    void aContextThatIsNotExtendedHasNoOps() {
        device.op(VerbsContext.OPEN_XRCD, MemorySegment.ofAddress(0x1234_5678L)).abiCompat(0);

        assertThat(VerbsContext.op(device.context(), VerbsContext.OPEN_XRCD)).isEqualTo(MemorySegment.NULL);
    }

    @Test
    void aContextFromAnOlderLibraryHasOnlyTheOpsItsSizeCovers() {
        long size = VerbsContext.LAYOUT.byteSize();
        device.op(VerbsContext.OPEN_XRCD, MemorySegment.ofAddress(0x1234_5678L));

        device.size(size - VerbsContext.OPEN_XRCD.offset());
        assertThat(VerbsContext.op(device.context(), VerbsContext.OPEN_XRCD).address()).isEqualTo(0x1234_5678L);
        device.size(size - VerbsContext.OPEN_XRCD.offset() - 1);
        assertThat(VerbsContext.op(device.context(), VerbsContext.OPEN_XRCD)).isEqualTo(MemorySegment.NULL);
    }

    @Test
    void aMissingOpFailsTheVerbWithEopnotsuppInErrnoAsTheHeaderDoes() {
        MemorySegment state = CallState.current();
        CallState.errno(state, 0);

        MemorySegment xrcd = InlineVerbs.ibv_open_xrcd(state, device.context(), arena.allocate(IbvXrcdInitAttr.LAYOUT));

        assertThat(xrcd).isEqualTo(MemorySegment.NULL);
        assertThat(CallState.errno(state)).isEqualTo(Errno.EOPNOTSUPP.number());
    }

    @Test
    void openXrcdOnADeviceWithoutXrcFailsWithEopnotsuppNamingTheDevice() {
        assertThatThrownBy(() -> domainVerbs.openXrcd(context, -1, OpenFlags.CREATE))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibv_open_xrcd");
                    assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP);
                    assertThat(e.resource()).isEqualTo(context.describe());
                    assertThat(e.reason()).isEqualTo("device rxe0 does not support XRC (IBV_DEVICE_XRC not set)");
                });
    }

    @Test
    void openXrcdCallsTheContextsOpWithTheFileAndFlags() throws Exception {
        created = device.object(IbvXrcd.LAYOUT);
        device.op(VerbsContext.OPEN_XRCD, upcall("openXrcd", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS)));

        XrcdHandle xrcd = domainVerbs.openXrcd(context, 42, OpenFlags.CREATE | OpenFlags.EXCLUSIVE);

        assertThat(seenContext).isEqualTo(device.context().address());
        assertThat(seenCompMask).isEqualTo(IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_FD
                | IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_OFLAGS);
        assertThat(seenFd).isEqualTo(42);
        assertThat(seenOflags).isEqualTo(0300);
        assertThat(xrcd.describe()).isEqualTo("ibv_xrcd@0x" + Long.toHexString(created.address()));
    }

    @Test
    void aCloseThatFailsLeavesTheDomainUsableAndTheCloseRetryable() throws Exception {
        device.op(VerbsContext.CLOSE_XRCD, upcall("closeXrcd", FunctionDescriptor.of(JAVA_INT, ADDRESS)));
        NativeXrcd xrcd = new NativeXrcd(provider, device.object(IbvXrcd.LAYOUT), context);
        closeResults.add(Errno.EBUSY.number());
        closeResults.add(0);

        assertThatThrownBy(() -> domainVerbs.closeXrcd(xrcd))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EBUSY);
                    assertThat(e.reason()).contains("XRC QPs or SRQs");
                });
        assertThat(xrcd.isDestroyed()).isFalse();
        domainVerbs.closeXrcd(xrcd);
        assertThat(xrcd.isDestroyed()).isTrue();
        assertThatThrownBy(() -> domainVerbs.closeXrcd(xrcd)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anXrcReceiveQpIsCreatedThroughCreateQpExWithTheXrcDomain() throws Exception {
        created = device.object(IbvQp.LAYOUT);
        IbvQp.QP_NUM.set(created, 0x00ABCD);
        device.op(VerbsContext.CREATE_QP_EX, upcall("createQpEx", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS)));
        NativeXrcd xrcd = new NativeXrcd(provider, MemorySegment.ofAddress(0x9000), context);

        QpHandle qp = qpVerbs.createQp(context, new QpInitSpec(QpType.XRC_RECV, null, xrcd, null, null, null,
                QpCapabilities.of(0, 0), false));

        assertThat(seenCompMask).isEqualTo(IbvQpInitAttrEx.IBV_QP_INIT_ATTR_XRCD);
        assertThat(seenQpType).isEqualTo(QpType.XRC_RECV.value());
        assertThat(seenXrcd).isEqualTo(0x9000);
        assertThat(qp.qpNum()).isEqualTo(0x00ABCD);
        assertThat(qp.type()).isEqualTo(QpType.XRC_RECV);
    }

    @Test
    void anXrcQpOnADeviceWithoutXrcFailsWithEopnotsupp() {
        NativeXrcd xrcd = new NativeXrcd(provider, MemorySegment.ofAddress(0x9000), context);

        assertThatThrownBy(() -> qpVerbs.createQp(context, new QpInitSpec(QpType.XRC_RECV, null, xrcd, null, null,
                null, QpCapabilities.of(0, 0), false)))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibv_create_qp_ex");
                    assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP);
                    assertThat(e.reason()).contains("does not support XRC");
                });
    }

    @Test
    void anOpenedQpComesFromTheOpenQpOpWithNumberDomainAndType() throws Exception {
        created = device.object(IbvQp.LAYOUT);
        IbvQp.QP_NUM.set(created, 0x77);
        device.op(VerbsContext.OPEN_QP, upcall("openQp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS)));
        NativeXrcd xrcd = new NativeXrcd(provider, MemorySegment.ofAddress(0x9000), context);

        QpHandle qp = qpVerbs.openQp(context, xrcd, 0x77, QpType.XRC_RECV);

        assertThat(seenCompMask).isEqualTo(IbvQpOpenAttr.IBV_QP_OPEN_ATTR_NUM | IbvQpOpenAttr.IBV_QP_OPEN_ATTR_XRCD
                | IbvQpOpenAttr.IBV_QP_OPEN_ATTR_TYPE);
        assertThat(seenQpNum).isEqualTo(0x77);
        assertThat(seenXrcd).isEqualTo(0x9000);
        assertThat(seenQpType).isEqualTo(QpType.XRC_RECV.value());
        assertThat(qp.qpNum()).isEqualTo(0x77);
    }

    @Test
    void anXrcSrqIsCreatedThroughCreateSrqExAndKnowsItsNumber() throws Exception {
        created = device.object(IbvSrq.LAYOUT);
        device.op(VerbsContext.CREATE_SRQ_EX, upcall("createSrqEx", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS)));
        device.op(VerbsContext.GET_SRQ_NUM, upcall("getSrqNum", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)));
        NativePd pd = new NativePd(provider, MemorySegment.ofAddress(0x5000), context);
        NativeXrcd xrcd = new NativeXrcd(provider, MemorySegment.ofAddress(0x9000), context);
        NativeCq cq = new NativeCq(provider, MemorySegment.ofAddress(0xc000), context, 16, null, MemorySegment.NULL,
                MemorySegment.NULL);

        SrqHandle srq = srqVerbs.createSrq(context, new SrqInitSpec(SrqType.XRC, pd, xrcd, cq, 64, 2, 0));

        assertThat(seenCompMask).isEqualTo(IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE
                | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_XRCD
                | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_CQ);
        assertThat(seenXrcd).isEqualTo(0x9000);
        assertThat(srq.srqNum()).isEqualTo(0x5150);
    }

    @Test
    void aBasicSrqTakesTheHeadersShortcutToIbvCreateSrq() {
        int pd = IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD;
        int type = IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE;
        int xrcd = IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_XRCD;

        assertThat(InlineVerbs.isBasicSrq(pd, IbvSrqInitAttrEx.IBV_SRQT_XRC)).as("PD only").isTrue();
        assertThat(InlineVerbs.isBasicSrq(pd | type, IbvSrqInitAttrEx.IBV_SRQT_BASIC)).isTrue();
        assertThat(InlineVerbs.isBasicSrq(pd | type, IbvSrqInitAttrEx.IBV_SRQT_XRC)).isFalse();
        assertThat(InlineVerbs.isBasicSrq(type, IbvSrqInitAttrEx.IBV_SRQT_BASIC)).as("no PD").isFalse();
        assertThat(InlineVerbs.isBasicSrq(pd | type | xrcd, IbvSrqInitAttrEx.IBV_SRQT_BASIC)).isFalse();
    }

    @Test
    void queryPortGivesTheContextsOpTheSizeOfOurPortAttr() throws Exception {
        device.op(VerbsContext.QUERY_PORT,
                upcall("queryPort", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG)));

        PortAttributes port = deviceVerbs.queryPort(context, 1);

        assertThat(seenPort).isEqualTo((byte) 1);
        assertThat(seenSize).isEqualTo(IbvPortAttr.LAYOUT.byteSize()).isEqualTo(52);
        assertThat(port.isActive()).isTrue();
        assertThat(port.activeMtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(port.linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(port.gidTableLength()).isEqualTo(16);
    }

    @Test
    void aPortNumberOutsideUint8IsRefusedWithEinvalBeforeTheCall() {
        assertThatThrownBy(() -> deviceVerbs.queryPort(context, 256))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    // ---- the upcalls --------------------------------------------------------------------------

    private MemorySegment upcall(String method, FunctionDescriptor descriptor) throws ReflectiveOperationException {
        MethodType type = descriptor.toMethodType();
        var target = MethodHandles.lookup().findVirtual(InlineDispatchTest.class, method, type).bindTo(this);
        return Linker.nativeLinker().upcallStub(target, descriptor, arena);
    }

    MemorySegment openXrcd(MemorySegment ctx, MemorySegment attr) {
        MemorySegment a = attr.reinterpret(IbvXrcdInitAttr.LAYOUT.byteSize());
        seenContext = ctx.address();
        seenCompMask = IbvXrcdInitAttr.COMP_MASK.get(a);
        seenFd = IbvXrcdInitAttr.FD.get(a);
        seenOflags = IbvXrcdInitAttr.OFLAGS.get(a);
        return created;
    }

    int closeXrcd(MemorySegment xrcd) {
        Integer result = closeResults.poll();
        return result == null ? 0 : result;
    }

    MemorySegment createQpEx(MemorySegment ctx, MemorySegment attr) {
        MemorySegment a = attr.reinterpret(IbvQpInitAttrEx.LAYOUT.byteSize());
        seenCompMask = IbvQpInitAttrEx.COMP_MASK.get(a);
        seenQpType = IbvQpInitAttrEx.QP_TYPE.get(a);
        seenXrcd = IbvQpInitAttrEx.XRCD.get(a).address();
        return created;
    }

    MemorySegment openQp(MemorySegment ctx, MemorySegment attr) {
        MemorySegment a = attr.reinterpret(IbvQpOpenAttr.LAYOUT.byteSize());
        seenCompMask = IbvQpOpenAttr.COMP_MASK.get(a);
        seenQpNum = IbvQpOpenAttr.QP_NUM.get(a);
        seenXrcd = IbvQpOpenAttr.XRCD.get(a).address();
        seenQpType = IbvQpOpenAttr.QP_TYPE.get(a);
        return created;
    }

    MemorySegment createSrqEx(MemorySegment ctx, MemorySegment attr) {
        MemorySegment a = attr.reinterpret(IbvSrqInitAttrEx.LAYOUT.byteSize());
        seenCompMask = IbvSrqInitAttrEx.COMP_MASK.get(a);
        seenXrcd = IbvSrqInitAttrEx.XRCD.get(a).address();
        return created;
    }

    int getSrqNum(MemorySegment srq, MemorySegment number) {
        number.reinterpret(4).set(JAVA_INT, 0, 0x5150);
        return 0;
    }

    int queryPort(MemorySegment ctx, byte port, MemorySegment attr, long size) {
        seenPort = port;
        seenSize = size;
        MemorySegment a = attr.reinterpret(size);
        IbvPortAttr.STATE.set(a, 4);
        IbvPortAttr.MAX_MTU.set(a, 5);
        IbvPortAttr.ACTIVE_MTU.set(a, 3);
        IbvPortAttr.GID_TBL_LEN.set(a, 16);
        IbvPortAttr.LINK_LAYER.set(a, (byte) 2);
        return 0;
    }
}
