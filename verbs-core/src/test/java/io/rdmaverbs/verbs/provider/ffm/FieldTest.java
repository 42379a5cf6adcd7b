package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

/**
 * The accessors derived from a struct layout against raw bytes at literal offsets (those of
 * {@code struct ibv_wc} and {@code struct ibv_qp_attr} on x86_64/aarch64), so they do not trust the
 * layouts they are built from.
 */
class FieldTest {

    @Test
    void anAccessorReadsAndWritesItsMemberOfTheStructAtTheGivenBase() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment wcs = arena.allocate(MemoryLayout.sequenceLayout(3, IbvWc.LAYOUT));
            long second = IbvWc.SIZE;
            wcs.set(JAVA_INT, second + 28, 0x00AB_CDEF);

            assertThat(IbvWc.QP_NUM.get(wcs, second)).isEqualTo(0x00AB_CDEF);
            assertThat(IbvWc.QP_NUM.get(wcs)).as("the first element is untouched").isZero();

            IbvWc.SRC_QP.set(wcs, 2 * IbvWc.SIZE, 77);
            assertThat(wcs.get(JAVA_INT, 2 * IbvWc.SIZE + 32)).isEqualTo(77);
        }
    }

    @Test
    void aBigEndianMemberIsReadAndWrittenInHostOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
            IbvWc.IMM_DATA.set(wc, 0x1122_3344);

            assertThat(wc.asSlice(24, 4).toArray(JAVA_BYTE)).as("imm_data travels in network order")
                    .containsExactly(0x11, 0x22, 0x33, 0x44);
            assertThat(IbvWc.IMM_DATA.get(wc)).isEqualTo(0x1122_3344);
        }
    }

    @Test
    void aMemberOfANestedStructIsAddressedFromTheOuterStructsOffset() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvQpAttr.LAYOUT);
            IbvQpCap.MAX_INLINE_DATA.set(attr, IbvQpAttr.CAP, 256);

            assertThat(attr.get(JAVA_INT, 36 + 16)).as("ibv_qp_attr.cap.max_inline_data").isEqualTo(256);
        }
    }

    @Test
    void anAccessorOfTheWrongWidthIsRefusedWhenItIsMade() {
        assertThatThrownBy(() -> Field.ofInt(IbvWc.LAYOUT, "slid"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ibv_wc.slid is laid out as s2")
                .hasMessageContaining("OfInt accessor");
    }
}
