package io.rdmaverbs.verbs.connection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The 24-byte frame header as docs/connections.md ("The wire protocol") lays it out. */
class FrameHeaderTest {

    @Test
    void aWrittenHeaderHasTheDocumentedBytesAndReadsBackAsWritten() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment frame = arena.allocate(FrameHeader.BYTES + 3).fill((byte) 0x5A);

            FrameHeader.write(frame, FrameKind.REQUEST, 1, 0xBEEF, 3, 0x0102030405060708L, 0, 0x0A0B0C0D);

            assertThat(HexFormat.of().formatHex(frame.asSlice(0, FrameHeader.BYTES).toArray(ValueLayout.JAVA_BYTE)))
                    .isEqualTo("02" + "01" + "beef" + "00000003" + "0102030405060708" + "0000" + "0000" + "0a0b0c0d");
            assertThat(FrameHeader.read(frame, FrameHeader.BYTES + 3))
                    .isEqualTo(new FrameHeader(FrameKind.REQUEST, 1, 0xBEEF, 3, 0x0102030405060708L, 0, 0x0A0B0C0D));
        }
    }
}
