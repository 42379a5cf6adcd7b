package io.rdmaverbs.verbs.connection;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.random.RandomGenerator;

import io.rdmaverbs.verbs.attr.RemoteAccess;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The packed remote key, its layout and its refusals, and the session nonces it carries: no device, no peer. */
class RemoteKeyTest {

    private static final int EXPORTER = 0x1234;
    private static final int IMPORTER = 0xBEEF;

    private static RemoteKey key() {
        return new RemoteKey(7, 0x7f00_1234_5000L, 65536, 0xCAFE01, EnumSet.of(RemoteAccess.READ, RemoteAccess.ATOMIC),
                EXPORTER, IMPORTER);
    }

    @Test
    void aKeyPacksToFortyBigEndianBytesInTheDocumentedLayoutAndUnpacksToItself() {
        byte[] packed = key().toByteArray();

        assertThat(packed).hasSize(RemoteKey.BYTES);
        ByteBuffer b = ByteBuffer.wrap(packed);
        assertThat(b.getInt(0)).isEqualTo(0x5256524B);                // 'RVRK'
        assertThat(b.get(4)).isEqualTo((byte) 1);                     // version
        assertThat(b.get(5)).isEqualTo((byte) 0b101);                 // READ | ATOMIC
        assertThat(Short.toUnsignedInt(b.getShort(6))).isEqualTo(EXPORTER);
        assertThat(Short.toUnsignedInt(b.getShort(8))).isEqualTo(IMPORTER);
        assertThat(b.getShort(10)).isZero();
        assertThat(b.getInt(12)).isEqualTo(0xCAFE01);
        assertThat(b.getLong(16)).isEqualTo(7);
        assertThat(b.getLong(24)).isEqualTo(0x7f00_1234_5000L);
        assertThat(b.getLong(32)).isEqualTo(65536);

        RemoteKey back = RemoteKey.unpack(packed);
        assertThat(back).isEqualTo(key());
        assertThat(back.exportId()).isEqualTo(7);
        assertThat(back.length()).isEqualTo(65536);
        assertThat(back.access()).containsExactlyInAnyOrder(RemoteAccess.READ, RemoteAccess.ATOMIC);
        assertThat(back.address()).isEqualTo(0x7f00_1234_5000L);
        assertThat(back.rkey()).isEqualTo(0xCAFE01);
    }

    @Test
    void itsTextSaysWhatItOpensButNotWhere() {
        assertThat(key().toString()).isEqualTo("remote key of export 7 (65536 bytes, " + key().access() + ")")
                .doesNotContain("cafe01").doesNotContain("7f0012345000");
    }

    @Test
    void bytesThatAreNoKeyAreRefusedSayingWhat() {
        byte[] good = key().toByteArray();
        assertThatThrownBy(() -> RemoteKey.unpack(new byte[39])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a remote key is 40 bytes, got 39");
        byte[] magic = good.clone();
        magic[0] = 'X';
        assertThatThrownBy(() -> RemoteKey.unpack(magic)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a remote key of version 1");
        byte[] version = good.clone();
        version[4] = 2;
        assertThatThrownBy(() -> RemoteKey.unpack(version)).hasMessageContaining("version 2");
        byte[] noAccess = good.clone();
        noAccess[5] = 0;
        assertThatThrownBy(() -> RemoteKey.unpack(noAccess)).hasMessageContaining("with access []");
        byte[] empty = good.clone();
        ByteBuffer.wrap(empty).putLong(32, 0);
        assertThatThrownBy(() -> RemoteKey.unpack(empty)).hasMessageContaining("and 0 bytes");
    }

    @Test
    void aKeyOpensOnlyOnTheSideItWasExportedToOnItsSession() {
        RemoteKey k = RemoteKey.unpack(key().toByteArray());

        // The importer: its own nonce is the key's importer nonce, its peer's the exporter's.
        k.requireExportedTo("client/conn-1", IMPORTER, EXPORTER);
        assertThatThrownBy(() -> k.requireExportedTo("server/conn-2", EXPORTER, IMPORTER))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("server/conn-2: remote key of export 7 (65536 bytes, " + k.access() + ") was exported by "
                        + "this side; send it to the peer, which opens it with Session.remoteRegion");
        assertThatThrownBy(() -> k.requireExportedTo("client/conn-3", IMPORTER, 0x4321))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was exported on another session (its nonces 0x1234/0xbeef, this session's "
                        + "0x4321/0xbeef)");
        assertThatThrownBy(() -> k.requireExportedTo("client/conn-4", 0x1111, EXPORTER))
                .hasMessageContaining("another session");
    }

    @Test
    void theHelloCarriesTheNonceAndThePassiveSideNeverPicksTheRequestersOwn() {
        ConnectionSpec spec = ConnectionSpec.rc();
        Hello hello = Hello.parse(Hello.of(spec, 0xBEEF).prefix(new byte[0]));
        assertThat(hello.nonce()).isEqualTo(0xBEEF);

        // A generator that first draws the requester's nonce, then 0x0010: the second is taken.
        RandomGenerator drawsTheRequestersFirst = new RandomGenerator() {
            private int calls;

            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int nextInt(int bound) {
                return calls++ == 0 ? 0xBEEF - 1 : 0x000F;
            }
        };
        assertThat(Hello.newNonce(hello, drawsTheRequestersFirst)).isEqualTo(0x0010);
        assertThat(Hello.newNonce(null, new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int nextInt(int bound) {
                return 0;
            }
        })).as("never 0: a peer that predates nonces sends 0").isEqualTo(1);
    }

    @Test
    void accessSetsPackToTheKeysBits() {
        assertThat(RemoteAccess.mask(Set.of(RemoteAccess.WRITE))).isEqualTo(2);
        assertThat(RemoteAccess.of(0b111)).containsExactlyInAnyOrder(RemoteAccess.values());
        assertThat(RemoteAccess.of(0b1000)).as("bits of a later version are ignored").isEmpty();
    }
}
