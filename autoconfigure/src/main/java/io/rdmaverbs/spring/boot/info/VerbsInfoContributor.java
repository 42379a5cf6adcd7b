package io.rdmaverbs.spring.boot.info;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * {@code rdmaVerbs} under {@code /actuator/info}: the provider ({@code native} or {@code simulated}),
 * where libibverbs was loaded from and its rdma-core release when its file name tells it (native only,
 * see {@link LibibverbsVersion}), and the devices present ({@code ibv_get_device_list})
 * with their node GUID and type, whether or not a context is open on them.
 */
public final class VerbsInfoContributor implements InfoContributor {

    private final Verbs verbs;

    public VerbsInfoContributor(Verbs verbs) {
        this.verbs = verbs;
    }

    @Override
    public void contribute(Info.Builder builder) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("provider", verbs.provider().name());
        if (verbs.provider() instanceof NativeVerbsProvider) {
            // Already loaded: availability() only reports where from.
            info.put("library", NativeVerbsProvider.availability().message());
            LibibverbsVersion.ofThisProcess().ifPresent(release -> info.put("rdmaCore", release));
        }
        info.put("devices", devices(verbs.devices()));
        builder.withDetail("rdmaVerbs", info);
    }

    private static List<Map<String, Object>> devices(List<DeviceInfo> devices) {
        return devices.stream().map(d -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", d.name());
            m.put("guid", d.guidHex());
            m.put("nodeType", d.nodeType().name());
            return m;
        }).toList();
    }
}
