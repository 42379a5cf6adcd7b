package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.ContextHandle;

import org.junit.jupiter.api.Test;

class DeviceProfileTest {

    @Test
    void rxeProfileIsSoftRoceOnKernel61WithoutXrc() {
        DeviceProfile rxe = DeviceProfile.rxe("rxe0");
        DeviceAttributes a = rxe.attributes();

        assertThat(rxe.supportsXrc()).isFalse();
        assertThat(a.deviceCapFlags() & DeviceAttributes.CAP_XRC).isZero();
        assertThat(rxe.driver()).isEqualTo(Driver.RXE);
        assertThat(a.maxCqe()).isEqualTo(32767);
        assertThat(a.numCompVectors()).isEqualTo(2);
        assertThat(a.maxQpWr()).isEqualTo(1 << 20);
        assertThat(a.maxSge()).isEqualTo(32);
        assertThat(a.maxSrqSge()).isEqualTo(27);
        assertThat(a.maxAh()).isEqualTo(32767);
        assertThat(a.maxMcastGrp()).isEqualTo(8192);
        assertThat(a.maxMcastQpAttach()).isEqualTo(56);
        assertThat(a.physPortCount()).isEqualTo(1);
        assertThat(rxe.maxInlineData()).isEqualTo(512);

        DeviceProfile.Port port = rxe.port(1);
        assertThat(port.state()).isEqualTo(PortState.ACTIVE);
        assertThat(port.linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(port.activeMtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(port.gidTableLength()).isEqualTo(1024);
        Gid gid0 = port.gid(0);
        assertThat(gid0.isIpv6LinkLocal()).isTrue();
        assertThat(gid0.interfaceId()).isEqualTo(rxe.guid());
        assertThat(port.gid(1)).isEqualTo(Gid.ZERO);
    }

    @Test
    void rxeGuidIsAModifiedEui64OfALocallyAdministeredMacDerivedFromTheName() {
        long guid = DeviceProfile.rxe("rxe0").guid();
        assertThat((guid >>> 24) & 0xffff).isEqualTo(0xfffe);
        assertThat(DeviceProfile.rxe("rxe0").guid()).isEqualTo(guid);
        assertThat(DeviceProfile.rxe("rxe1").guid()).isNotEqualTo(guid);
    }

    @Test
    void mlx5ProfileIsARoceHcaWithXrcAndBiggerLimits() {
        DeviceProfile mlx5 = DeviceProfile.mlx5("mlx5_0");
        DeviceProfile rxe = DeviceProfile.rxe("rxe0");

        assertThat(mlx5.supportsXrc()).isTrue();
        assertThat(mlx5.driver()).isEqualTo(Driver.MLX5);
        assertThat(mlx5.attributes().maxCqe()).isEqualTo(4194303);
        assertThat(mlx5.attributes().numCompVectors()).isEqualTo(8);
        assertThat(mlx5.attributes().maxQp()).isGreaterThan(0);
        assertThat(mlx5.port(1).linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(mlx5.port(1).gid(0).isIpv6LinkLocal()).isTrue();
        assertThat(mlx5.guid()).isNotEqualTo(rxe.guid());
    }

    @Test
    void mlx5InfinibandProfileAddressesByLid() {
        DeviceProfile ib = DeviceProfile.mlx5Infiniband("mlx5_0");
        assertThat(ib.supportsXrc()).isTrue();
        assertThat(ib.port(1).linkLayer()).isEqualTo(LinkLayer.INFINIBAND);
        assertThat(ib.port(1).lid()).isBetween(1, 0xbfff);
        assertThat(ib.port(1).lid()).isNotEqualTo(DeviceProfile.mlx5Infiniband("mlx5_1").port(1).lid());
    }

    @Test
    void builderChangesOnlyWhatItIsTold() {
        DeviceProfile small = DeviceProfile.rxe("rxe0").toBuilder().maxPd(2).maxCqe(8).xrc(true).build();

        assertThat(small.attributes().maxPd()).isEqualTo(2);
        assertThat(small.attributes().maxCqe()).isEqualTo(8);
        assertThat(small.supportsXrc()).isTrue();
        assertThat(small.attributes().maxQp()).isEqualTo(DeviceProfile.rxe("rxe0").attributes().maxQp());
        assertThat(small.guid()).isEqualTo(DeviceProfile.rxe("rxe0").guid());
    }

    @Test
    void providerRefusesDevicesThatCouldNotBeToldApartOnTheFabric() {
        assertThatThrownBy(() -> SimulatedProvider.of(DeviceProfile.rxe("rxe0"), DeviceProfile.rxe("rxe0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rxe0");
        DeviceProfile twin = DeviceProfile.rxe("rxe0").toBuilder().name("rxe9").build();
        assertThatThrownBy(() -> SimulatedProvider.of(DeviceProfile.rxe("rxe0"), twin))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GUID");
    }

    @Test
    void queryDeviceAndPortReportTheProfile() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0"));
        assertThat(provider.name()).isEqualTo("simulated");
        assertThat(provider.deviceVerbs().devices()).extracting(d -> d.name()).containsExactly("rxe0", "mlx5_0");

        ContextHandle ctx = provider.deviceVerbs().openDevice(provider.deviceVerbs().devices().get(0));
        assertThat(ctx.numCompVectors()).isEqualTo(2);
        assertThat(ctx.device().name()).isEqualTo("rxe0");
        assertThat(provider.deviceVerbs().queryDevice(ctx)).isEqualTo(DeviceProfile.rxe("rxe0").attributes());
        PortAttributes port = provider.deviceVerbs().queryPort(ctx, 1);
        assertThat(port.state()).isEqualTo(PortState.ACTIVE);
        assertThat(port.activeMtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(port.linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(port.gidTableLength()).isEqualTo(1024);
        assertThat(provider.deviceVerbs().queryGid(ctx, 1, 0)).isEqualTo(DeviceProfile.rxe("rxe0").port(1).gid(0));
        assertThat(provider.deviceVerbs().queryGid(ctx, 1, 1)).as("an empty entry reads as zero").isEqualTo(Gid.ZERO);
    }
}
