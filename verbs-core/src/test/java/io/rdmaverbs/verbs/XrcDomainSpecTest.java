package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import io.rdmaverbs.verbs.attr.OpenFlags;

import org.junit.jupiter.api.Test;

class XrcDomainSpecTest {

    private static final Path FILE = Path.of("/tmp/xrcd.key");

    @Test
    void theFactoriesStateTheOpenFlagsOfIbvOpenXrcd() {
        assertThat(XrcDomainSpec.privateDomain().openFlags()).isEqualTo(OpenFlags.CREATE);
        assertThat(XrcDomainSpec.shared(FILE).openFlags()).isEqualTo(OpenFlags.CREATE);
        assertThat(XrcDomainSpec.exclusive(FILE).openFlags()).isEqualTo(OpenFlags.CREATE | OpenFlags.EXCLUSIVE);
        assertThat(XrcDomainSpec.existing(FILE).openFlags()).isZero();
        assertThat(XrcDomainSpec.onDescriptor(7).openFlags()).isEqualTo(OpenFlags.CREATE);
    }

    @Test
    void onlyADomainWithoutFileOrDescriptorIsPrivate() {
        assertThat(XrcDomainSpec.privateDomain().isPrivate()).isTrue();
        assertThat(XrcDomainSpec.shared(FILE).isPrivate()).isFalse();
        assertThat(XrcDomainSpec.onDescriptor(7).isPrivate()).isFalse();
        assertThat(XrcDomainSpec.onDescriptor(7).descriptor()).isEqualTo(7);
        assertThat(XrcDomainSpec.shared(FILE).descriptor()).isEqualTo(-1);
    }

    @Test
    void withersReachTheSameSpecsAsTheFactories() {
        assertThat(XrcDomainSpec.shared(FILE).withExclusive(true)).isEqualTo(XrcDomainSpec.exclusive(FILE));
        assertThat(XrcDomainSpec.shared(FILE).withCreate(false)).isEqualTo(XrcDomainSpec.existing(FILE));
        assertThat(XrcDomainSpec.onDescriptor(7).withExclusive(true))
                .isEqualTo(new XrcDomainSpec(null, 7, true, true));
    }

    @Test
    void exclusiveWithoutCreateIsRejectedNamingBothFlags() {
        assertThatThrownBy(() -> XrcDomainSpec.existing(FILE).withExclusive(true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("exclusive (O_EXCL) needs create (O_CREAT)");
        assertThatThrownBy(() -> XrcDomainSpec.exclusive(FILE).withCreate(false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("O_EXCL");
    }

    @Test
    void aFileAndADescriptorTogetherAreRejected() {
        assertThatThrownBy(() -> new XrcDomainSpec(FILE, 7, true, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("file and descriptor both name the domain's inode");
    }

    @Test
    void aNegativeDescriptorIsRejectedNamingTheField() {
        assertThatThrownBy(() -> new XrcDomainSpec(null, -2, true, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("descriptor must be");
        assertThatThrownBy(() -> XrcDomainSpec.onDescriptor(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("privateDomain()");
    }
}
