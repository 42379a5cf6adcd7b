package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;

import org.junit.jupiter.api.Test;

/**
 * The off-heap work requests and completions against the C structs, byte for byte. Offsets are the
 * literal numbers of {@code <infiniband/verbs.h>} on x86_64/aarch64 (NativeAbiTest checks the
 * layouts say the same), so these tests do not trust the layouts they test.
 */
class WorkRequestEncodingTest {

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();

    @Test
    void sendRequestIsWrittenAsAnIbvSendWrWithSgListPointingAtItsSges() {
        try (NativeSendWr wr = (NativeSendWr) qpVerbs.newSendWr(3)) {
            wr.wrId(0x1122_3344_5566_7788L);
            wr.opcode(SendOpcode.RDMA_WRITE_WITH_IMM);
            wr.flags(SendFlag.SIGNALED | SendFlag.SOLICITED);
            wr.sge(0, 0x7f00_0000_1000L, 4096, 0xAABB);
            wr.sge(2, 0x7f00_0000_3000L, 16, 0xCCDD);
            wr.sgeCount(3);
            wr.immediateData(0x0102_0304);
            wr.rdma(0x7f00_dead_b000L, 0x4242);

            MemorySegment raw = wr.wr().reinterpret(128 + 3 * 16 + 8);
            assertThat(raw.get(JAVA_LONG, 0)).isEqualTo(0x1122_3344_5566_7788L);
            assertThat(raw.get(ADDRESS, 8).address()).as("next").isZero();
            assertThat(raw.get(ADDRESS, 16).address()).as("sg_list").isEqualTo(wr.wr().address() + 128);
            assertThat(raw.get(JAVA_INT, 24)).as("num_sge").isEqualTo(3);
            assertThat(raw.get(JAVA_INT, 28)).as("opcode").isEqualTo(1);
            assertThat(raw.get(JAVA_INT, 32)).as("send_flags").isEqualTo(2 | 4);
            assertThat(raw.asSlice(36, 4).toArray(JAVA_BYTE)).as("imm_data in network order")
                    .containsExactly(1, 2, 3, 4);
            assertThat(raw.get(JAVA_LONG, 40)).as("wr.rdma.remote_addr").isEqualTo(0x7f00_dead_b000L);
            assertThat(raw.get(JAVA_INT, 48)).as("wr.rdma.rkey").isEqualTo(0x4242);
            assertThat(raw.get(JAVA_LONG, 128)).as("sg_list[0].addr").isEqualTo(0x7f00_0000_1000L);
            assertThat(raw.get(JAVA_INT, 136)).as("sg_list[0].length").isEqualTo(4096);
            assertThat(raw.get(JAVA_INT, 140)).as("sg_list[0].lkey").isEqualTo(0xAABB);
            assertThat(raw.get(JAVA_LONG, 160)).as("sg_list[2].addr").isEqualTo(0x7f00_0000_3000L);
            assertThat(raw.get(JAVA_INT, 172)).as("sg_list[2].lkey").isEqualTo(0xCCDD);
            assertThat(wr.badWr().address()).as("bad_wr slot after the SGEs").isEqualTo(wr.wr().address() + 176);

            assertThat(wr.immediateData()).as("read back in host order").isEqualTo(0x0102_0304);
            assertThat(wr.opcode()).isEqualTo(SendOpcode.RDMA_WRITE_WITH_IMM);
            assertThat(wr.sgeLength(2)).isEqualTo(16);
            assertThat(wr.remoteAddress()).isEqualTo(0x7f00_dead_b000L);
        }
    }

    @Test
    void datagramAndXrcDestinationsLandInTheUdAndXrcUnionMembers() {
        try (Arena arena = Arena.ofConfined(); NativeSendWr wr = (NativeSendWr) qpVerbs.newSendWr(1)) {
            FakeVerbsContext device = new FakeVerbsContext(arena);
            NativePd pd = new NativePd(provider, MemorySegment.ofAddress(0x5000), device.handle(provider, "rxe0"));
            NativeAh ah = new NativeAh(provider, MemorySegment.ofAddress(0x7f12_3456_7000L), pd);

            wr.datagram(ah, 0x00AB_CDEF, 0x1111_2222);
            wr.xrcRemoteSrqNum(77);

            MemorySegment raw = wr.wr().reinterpret(128);
            assertThat(raw.get(ADDRESS, 40).address()).as("wr.ud.ah").isEqualTo(0x7f12_3456_7000L);
            assertThat(raw.get(JAVA_INT, 48)).as("wr.ud.remote_qpn").isEqualTo(0x00AB_CDEF);
            assertThat(raw.get(JAVA_INT, 52)).as("wr.ud.remote_qkey").isEqualTo(0x1111_2222);
            assertThat(raw.get(JAVA_INT, 72)).as("qp_type.xrc.remote_srqn").isEqualTo(77);
            assertThat(wr.addressHandle()).isSameAs(ah);
            assertThat(wr.remoteQpn()).isEqualTo(0x00AB_CDEF);
        }
    }

    @Test
    void clearZeroesTheRequestButKeepsSgListPointingAtItsSges() {
        try (NativeSendWr wr = (NativeSendWr) qpVerbs.newSendWr(2)) {
            wr.wrId(9);
            wr.sge(1, 1, 2, 3);
            wr.sgeCount(2);
            wr.immediateData(5);

            wr.clear();

            MemorySegment raw = wr.wr().reinterpret(128 + 2 * 16);
            assertThat(raw.asSlice(0, 16).toArray(JAVA_BYTE)).containsOnly(0);
            assertThat(raw.asSlice(24, 104).toArray(JAVA_BYTE)).containsOnly(0);
            assertThat(raw.asSlice(128, 32).toArray(JAVA_BYTE)).containsOnly(0);
            assertThat(raw.get(ADDRESS, 16).address()).isEqualTo(wr.wr().address() + 128);
            assertThat(wr.addressHandle()).isNull();
        }
    }

    @Test
    void receiveRequestIsWrittenAsAnIbvRecvWrWithSgListPointingAtItsSges() {
        try (NativeRecvWr wr = (NativeRecvWr) qpVerbs.newRecvWr(2)) {
            wr.wrId(-2L);
            wr.sge(1, 0x1000, 512, 0x77);
            wr.sgeCount(2);

            MemorySegment raw = wr.wr().reinterpret(32 + 2 * 16);
            assertThat(raw.get(JAVA_LONG, 0)).isEqualTo(-2L);
            assertThat(raw.get(ADDRESS, 8).address()).as("next").isZero();
            assertThat(raw.get(ADDRESS, 16).address()).as("sg_list").isEqualTo(wr.wr().address() + 32);
            assertThat(raw.get(JAVA_INT, 24)).as("num_sge").isEqualTo(2);
            assertThat(raw.get(JAVA_LONG, 48)).as("sg_list[1].addr").isEqualTo(0x1000);
            assertThat(raw.get(JAVA_INT, 56)).as("sg_list[1].length").isEqualTo(512);
            assertThat(raw.get(JAVA_INT, 60)).as("sg_list[1].lkey").isEqualTo(0x77);
            assertThat(wr.badWr().address()).isEqualTo(wr.wr().address() + 64);
        }
    }

    @Test
    void workCompletionsAreReadFromAnIbvWcArrayWithImmediateDataInHostOrder() {
        try (NativeWorkCompletions wc = (NativeWorkCompletions) cqVerbs.newWorkCompletions(4)) {
            MemorySegment raw = wc.entries();
            assertThat(raw.byteSize()).isEqualTo(4 * 48);
            long second = 48;
            raw.set(JAVA_LONG, second, 0xFEED_FACEL);
            raw.set(JAVA_INT, second + 8, WcStatus.RNR_RETRY_EXC_ERR.ordinal());
            raw.set(JAVA_INT, second + 12, WcOpcode.RECV_RDMA_WITH_IMM.value());
            raw.set(JAVA_INT, second + 16, 0x51);
            raw.set(JAVA_INT, second + 20, 1500);
            MemorySegment.copy(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF}, 0, raw, JAVA_BYTE,
                    second + 24, 4);
            raw.set(JAVA_INT, second + 28, 0x00_0012);
            raw.set(JAVA_INT, second + 32, 0x00_0034);
            raw.set(JAVA_INT, second + 36, WcFlag.WITH_IMM);
            raw.set(JAVA_SHORT, second + 40, (short) 0xFFFF);
            raw.set(JAVA_SHORT, second + 42, (short) 0x8001);

            assertThat(wc.wrId(1)).isEqualTo(0xFEED_FACEL);
            assertThat(wc.status(1)).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
            assertThat(wc.opcode(1)).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(wc.vendorError(1)).isEqualTo(0x51);
            assertThat(wc.byteLength(1)).isEqualTo(1500);
            assertThat(wc.immediateData(1)).isEqualTo(0xDEAD_BEEF);
            assertThat(wc.qpNum(1)).isEqualTo(0x12);
            assertThat(wc.sourceQp(1)).isEqualTo(0x34);
            assertThat(wc.wcFlags(1)).isEqualTo(WcFlag.WITH_IMM);
            assertThat(wc.pkeyIndex(1)).isEqualTo(0xFFFF);
            assertThat(wc.sourceLid(1)).isEqualTo(0x8001);
        }
    }
}
