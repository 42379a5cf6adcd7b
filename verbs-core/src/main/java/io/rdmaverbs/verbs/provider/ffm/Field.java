package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One scalar member of a C struct, as jextract emits it ({@code field$LAYOUT}, {@code field$OFFSET}
 * and a getter and setter built from them): its value layout (so its width and byte order) and its
 * offset are both taken from the struct's {@code StructLayout} by name, so neither is stated a second
 * time at a call site.
 *
 * <p>Each kind is a record, and HotSpot trusts the final fields of records as constants: a
 * {@code static final} field folds to its layout and offset, and {@code get}/{@code set} compile to
 * the same load or store as {@code segment.get(U32, base + OFFSET)} with literal constants. Nothing is
 * allocated. The {@code (segment, base)} forms address the struct at {@code base} inside a larger
 * segment: an element of an {@code ibv_wc[]}, or a struct nested in another ({@code ibv_qp_attr.cap}).
 */
final class Field {

    private Field() {
    }

    static OfByte ofByte(GroupLayout struct, String... path) {
        return new OfByte(member(struct, ValueLayout.OfByte.class, path), offset(struct, path));
    }

    static OfShort ofShort(GroupLayout struct, String... path) {
        return new OfShort(member(struct, ValueLayout.OfShort.class, path), offset(struct, path));
    }

    static OfInt ofInt(GroupLayout struct, String... path) {
        return new OfInt(member(struct, ValueLayout.OfInt.class, path), offset(struct, path));
    }

    static OfLong ofLong(GroupLayout struct, String... path) {
        return new OfLong(member(struct, ValueLayout.OfLong.class, path), offset(struct, path));
    }

    static OfAddress ofAddress(GroupLayout struct, String... path) {
        return new OfAddress(member(struct, AddressLayout.class, path), offset(struct, path));
    }

    /** {@code offsetof(struct, a.b.c)}, for members that are arrays or nested structs rather than scalars. */
    static long offset(GroupLayout struct, String... path) {
        return struct.byteOffset(elements(path));
    }

    /** The member's layout, which must be of the accessor's kind: an int accessor on a uint16_t is a bug. */
    private static <L extends MemoryLayout> L member(GroupLayout struct, Class<L> kind, String... path) {
        MemoryLayout member = struct.select(elements(path));
        if (!kind.isInstance(member)) {
            throw new IllegalArgumentException(struct.name().orElse("struct") + "." + String.join(".", path)
                    + " is laid out as " + member + ", which a " + kind.getSimpleName() + " accessor cannot read");
        }
        return kind.cast(member);
    }

    private static PathElement[] elements(String... path) {
        return Arrays.stream(path).map(PathElement::groupElement).toArray(PathElement[]::new);
    }

    /** A {@code uint8_t} member. */
    record OfByte(ValueLayout.OfByte layout, long offset) {

        byte get(MemorySegment struct) {
            return struct.get(layout, offset);
        }

        void set(MemorySegment struct, byte value) {
            struct.set(layout, offset, value);
        }

        void set(MemorySegment segment, long base, byte value) {
            segment.set(layout, base + offset, value);
        }
    }

    /** A 16-bit member ({@code uint16_t}, {@code short}). */
    record OfShort(ValueLayout.OfShort layout, long offset) {

        short get(MemorySegment struct) {
            return struct.get(layout, offset);
        }

        short get(MemorySegment segment, long base) {
            return segment.get(layout, base + offset);
        }

        void set(MemorySegment struct, short value) {
            struct.set(layout, offset, value);
        }

        void set(MemorySegment segment, long base, short value) {
            segment.set(layout, base + offset, value);
        }
    }

    /** A 32-bit member ({@code int}, {@code uint32_t}, an enum, or {@code __be32} read in host order). */
    record OfInt(ValueLayout.OfInt layout, long offset) {

        int get(MemorySegment struct) {
            return struct.get(layout, offset);
        }

        int get(MemorySegment segment, long base) {
            return segment.get(layout, base + offset);
        }

        void set(MemorySegment struct, int value) {
            struct.set(layout, offset, value);
        }

        void set(MemorySegment segment, long base, int value) {
            segment.set(layout, base + offset, value);
        }
    }

    /** A 64-bit member ({@code uint64_t}, {@code size_t}, or {@code __be64} read in host order). */
    record OfLong(ValueLayout.OfLong layout, long offset) {

        long get(MemorySegment struct) {
            return struct.get(layout, offset);
        }

        long get(MemorySegment segment, long base) {
            return segment.get(layout, base + offset);
        }

        void set(MemorySegment struct, long value) {
            struct.set(layout, offset, value);
        }

        void set(MemorySegment segment, long base, long value) {
            segment.set(layout, base + offset, value);
        }
    }

    /** A pointer member; reads return a zero-length segment at the address. */
    record OfAddress(AddressLayout layout, long offset) {

        MemorySegment get(MemorySegment struct) {
            return struct.get(layout, offset);
        }

        MemorySegment get(MemorySegment segment, long base) {
            return segment.get(layout, base + offset);
        }

        void set(MemorySegment struct, MemorySegment value) {
            struct.set(layout, offset, value);
        }

        void set(MemorySegment segment, long base, MemorySegment value) {
            segment.set(layout, base + offset, value);
        }

        /** The bytes from the struct's start to the end of this member: what to reinterpret a bare pointer to. */
        long end() {
            return offset + layout.byteSize();
        }
    }
}
