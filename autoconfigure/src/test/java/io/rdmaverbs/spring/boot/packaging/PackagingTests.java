package io.rdmaverbs.spring.boot.packaging;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;

import javax.xml.parsers.DocumentBuilderFactory;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.verbs.Verbs;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the published artifacts carry and how they are found: the BOM ({@code dependencies/pom.xml}) manages
 * every artifact the reactor publishes, so a new module cannot be forgotten there, and every jar has the
 * licence in its {@code META-INF}.
 */
class PackagingTests {

    private static final Path ROOT = Path.of("..");
    private static final String GROUP = "io.rdmaverbs";
    private static final String BOM = "rdma-verbs-dependencies";

    @Test
    void theBomManagesEveryArtifactTheReactorPublishesAndNothingElse() throws Exception {
        Map<String, Element> modules = reactorModules();
        List<String> published = new ArrayList<>();
        modules.forEach((artifactId, pom) -> {
            if (!artifactId.equals(BOM) && !"true".equals(property(pom, "maven.deploy.skip"))) {
                published.add(artifactId);
            }
        });
        assertThat(published).as("published artifacts of the reactor").contains("rdma-verbs-core",
                "rdma-verbs-spring-boot-autoconfigure", "rdma-verbs-spring-boot-starter")
                .doesNotContain("rdma-verbs-sample-app", "rdma-verbs-benchmarks");

        List<String> managed = new ArrayList<>();
        for (Element dependency : children(child(child(modules.get(BOM), "dependencyManagement"), "dependencies"),
                "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo(GROUP);
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            managed.add(text(dependency, "artifactId"));
        }
        assertThat(managed).as("artifacts the BOM manages").containsExactlyInAnyOrderElementsOf(published);
    }

    @Test
    void everyJarCarriesTheLicenceInMetaInf() throws Exception {
        String licence = Files.readString(ROOT.resolve("LICENSE"), StandardCharsets.UTF_8);
        assertThat(licence).contains("Apache License");
        for (Class<?> type : List.of(Verbs.class, VerbsAutoConfiguration.class)) {
            assertThat(licenceOf(type)).as("META-INF/LICENSE of the module of " + type.getName())
                    .isEqualTo(licence);
        }
    }

    /** The modules of the root pom, its profiles' too, by artifactId. */
    private static Map<String, Element> reactorModules() throws Exception {
        Element root = pom(ROOT.resolve("pom.xml"));
        List<Element> lists = new ArrayList<>(children(root, "modules"));
        Element profiles = child(root, "profiles");
        if (profiles != null) {
            children(profiles, "profile").forEach(p -> lists.addAll(children(p, "modules")));
        }
        Map<String, Element> modules = new LinkedHashMap<>();
        for (Element list : lists) {
            for (Element module : children(list, "module")) {
                Element pom = pom(ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml"));
                modules.put(text(pom, "artifactId"), pom);
            }
        }
        return modules;
    }

    /** The META-INF/LICENSE of the class directory or jar {@code type} was loaded from. */
    private static String licenceOf(Class<?> type) throws IOException, URISyntaxException {
        Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(location)) {
            Path licence = location.resolve("META-INF/LICENSE");
            return Files.exists(licence) ? Files.readString(licence, StandardCharsets.UTF_8) : "";
        }
        try (JarFile jar = new JarFile(location.toFile())) {
            var entry = jar.getJarEntry("META-INF/LICENSE");
            if (entry == null) {
                return "";
            }
            try (InputStream in = jar.getInputStream(entry)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
    }

    private static Element pom(Path file) throws Exception {
        Document document = DocumentBuilderFactory.newDefaultInstance().newDocumentBuilder().parse(file.toFile());
        return document.getDocumentElement();
    }

    private static String property(Element pom, String name) {
        Element properties = child(pom, "properties");
        Element value = properties == null ? null : child(properties, name);
        return value == null ? null : value.getTextContent().trim();
    }

    private static String text(Element parent, String name) {
        Element element = child(parent, name);
        assertThat(element).as("<" + name + "> of <" + parent.getTagName() + ">").isNotNull();
        return element.getTextContent().trim();
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.getFirst();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE && nodes.item(i).getNodeName().equals(name)) {
                out.add((Element) nodes.item(i));
            }
        }
        return out;
    }
}
