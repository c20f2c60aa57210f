"""Hand-written pools for generate.py: invented people, companies, places, products and phrases (no Faker)."""

from dataclasses import dataclass

# first and last names that go together, by culture
NAMES = {
    "de": (["Anna", "Lukas", "Sophie", "Jonas", "Katharina", "Felix", "Miriam", "Tobias"],
           ["Müller", "Schneider", "Becker", "Hoffmann", "Wagner", "Krüger", "Neumann", "Schäfer"]),
    "fr": (["Léa", "Mathieu", "Camille", "Julien", "Élodie", "Antoine", "Chloé", "Nicolas"],
           ["Dubois", "Lefèvre", "Moreau", "Girard", "Fontaine", "Rousseau", "Garnier", "Chevalier"]),
    "es": (["Lucía", "Javier", "Carmen", "Mateo", "Valentina", "Diego", "Paula", "Álvaro"],
           ["García", "Fernández", "López", "Martínez", "Sánchez", "Romero", "Navarro", "Ortega"]),
    "it": (["Giulia", "Marco", "Francesca", "Luca", "Chiara", "Matteo"],
           ["Rossi", "Bianchi", "Ricci", "Conti", "Esposito", "Marino"]),
    "tr": (["Mehmet", "Ayşe", "Emre", "Zeynep", "Can", "Elif"], ["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Aydın"]),
    "in": (["Priya", "Arjun", "Ananya", "Rahul", "Divya", "Vikram"], ["Sharma", "Patel", "Iyer", "Reddy", "Nair",
                                                                      "Gupta"]),
    "cn": (["Wei", "Mei", "Jun", "Xiaoling", "Hao", "Yan"], ["Zhang", "Wang", "Li", "Chen", "Liu", "Zhou"]),
    "jp": (["Hiroshi", "Yuki", "Haruto", "Aiko", "Kenji", "Sakura"],
           ["Tanaka", "Suzuki", "Takahashi", "Watanabe", "Ito", "Nakamura"]),
    "kr": (["Ji-woo", "Min-jun", "Seo-yeon", "Hyun-woo"], ["Kim", "Park", "Choi", "Jung"]),
    "ng": (["Chidi", "Ngozi", "Emeka", "Adaeze", "Tunde", "Funmilayo"],
           ["Okafor", "Adeyemi", "Eze", "Balogun", "Nwosu", "Okonkwo"]),
    "ar": (["Omar", "Layla", "Karim", "Yasmin", "Tariq", "Nour"], ["Haddad", "Khalil", "Mansour", "Nasser", "Saleh"]),
    "nl": (["Joris", "Fleur", "Sanne", "Daan", "Lotte", "Bram"], ["de Vries", "van Dijk", "Jansen", "Bakker",
                                                                  "Visser"]),
    "pt": (["João", "Beatriz", "Rafael", "Mariana", "Tiago", "Inês"],
           ["Silva", "Santos", "Oliveira", "Costa", "Pereira", "Ferreira"]),
    "pl": (["Tomasz", "Agnieszka", "Piotr", "Katarzyna", "Michał", "Zofia"],
           ["Nowak", "Kowalczyk", "Mazur", "Krawczyk", "Wójcik", "Kaczmarek"]),
    "en": (["Emily", "James", "Olivia", "Daniel", "Grace", "Owen", "Hannah", "Ryan"],
           ["Walker", "Thompson", "Hughes", "Bennett", "Clarke", "Foster", "Murphy", "Reid"]),
    "sv": (["Sven", "Ingrid", "Astrid", "Erik", "Linnea", "Oskar"], ["Lindqvist", "Andersson", "Berg", "Nyström",
                                                                     "Holm"]),
    "vn": (["Minh", "Thu", "Linh", "Quang"], ["Nguyen", "Tran", "Pham", "Le"]),
    "gr": (["Eleni", "Nikos", "Dimitra", "Giorgos"], ["Papadopoulos", "Georgiou", "Nikolaidis", "Christodoulou"]),
}

MAIL_PROVIDERS = ["gmail.com", "outlook.com", "proton.me", "posteo.de", "gmx.de", "yahoo.fr", "icloud.com",
                  "fastmail.com"]


@dataclass(frozen=True)
class Country:
    """How a country writes its addresses, phone numbers and money, and where its cities are."""

    code: str
    names: dict          # lang -> the country's name in that language
    currency: str | None  # None: not one of the schemas' currencies
    vat: int              # percent; sales tax for US/CA, added on top
    address: str          # "eu" (street no, postal city), "fr", "uk", "us"
    cities: list          # (city, postal code, region or "")
    streets: list         # with {n} for the house number
    phones: list          # "#" is a random digit


def _names(en, de, fr, es):
    """A country's name in each document language."""
    return {"en": en, "de": de, "fr": fr, "es": es}


COUNTRIES = {c.code: c for c in [
    Country("DE", _names("Germany", "Deutschland", "Allemagne", "Alemania"), "EUR", 19, "eu",
            [("Berlin", "10115", ""), ("Hamburg", "20457", ""), ("München", "80331", ""), ("Köln", "50667", ""),
             ("Leipzig", "04109", ""), ("Frankfurt am Main", "60311", "")],
            ["Torstraße {n}", "Hafenweg {n}", "Lindenallee {n}", "Bergmannstraße {n}", "Schillerplatz {n}",
             "Am Mühlbach {n}"],
            ["+49 30 #######", "+49 (0)171 #######", "030 ### ## ##", "+49 89 ### ###-##", "+49 40 ########"]),
    Country("AT", _names("Austria", "Österreich", "Autriche", "Austria"), "EUR", 20, "eu",
            [("Wien", "1070", ""), ("Graz", "8010", ""), ("Salzburg", "5020", "")],
            ["Neubaugasse {n}", "Herrengasse {n}", "Linzer Gasse {n}"],
            ["+43 1 ### ## ##", "+43 664 ### ####"]),
    Country("CH", _names("Switzerland", "Schweiz", "Suisse", "Suiza"), "CHF", 8, "eu",
            [("Zürich", "8001", ""), ("Basel", "4051", ""), ("Genève", "1201", ""), ("Bern", "3011", "")],
            ["Bahnhofstrasse {n}", "Seefeldstrasse {n}", "Rue du Rhône {n}"],
            ["+41 44 ### ## ##", "+41 79 ### ## ##", "+41 61 ### ## ##"]),
    Country("FR", _names("France", "Frankreich", "France", "Francia"), "EUR", 20, "fr",
            [("Paris", "75011", ""), ("Lyon", "69002", ""), ("Nantes", "44000", ""), ("Bordeaux", "33000", ""),
             ("Lille", "59000", "")],
            ["{n} rue des Lilas", "{n} avenue Jean Jaurès", "{n} boulevard Voltaire", "{n} quai Saint-Antoine"],
            ["+33 1 ## ## ## ##", "06 ## ## ## ##", "+33 6 ## ## ## ##", "04 ## ## ## ##"]),
    Country("ES", _names("Spain", "Spanien", "Espagne", "España"), "EUR", 21, "eu",
            [("Madrid", "28004", ""), ("Barcelona", "08012", ""), ("Valencia", "46001", ""), ("Sevilla", "41001", "")],
            ["Calle Mayor {n}", "Calle de Alcalá {n}", "Avenida del Puerto {n}", "Carrer de Verdi {n}"],
            ["+34 91 ### ## ##", "+34 6## ### ###", "93 ### ## ##"]),
    Country("IT", _names("Italy", "Italien", "Italie", "Italia"), "EUR", 22, "eu",
            [("Milano", "20121", ""), ("Bologna", "40121", ""), ("Torino", "10121", "")],
            ["Via Garibaldi {n}", "Corso Buenos Aires {n}", "Via dell'Indipendenza {n}"],
            ["+39 02 #### ####", "+39 3## ### ####"]),
    Country("NL", _names("Netherlands", "Niederlande", "Pays-Bas", "Países Bajos"), "EUR", 21, "eu",
            [("Amsterdam", "1012 AB", ""), ("Utrecht", "3511 LN", ""), ("Rotterdam", "3011 AD", "")],
            ["Prinsengracht {n}", "Oudegracht {n}", "Witte de Withstraat {n}"],
            ["+31 20 ### ####", "+31 6 ########"]),
    Country("IE", _names("Ireland", "Irland", "Irlande", "Irlanda"), "EUR", 23, "uk",
            [("Dublin", "D02 X285", ""), ("Cork", "T12 RX2C", ""), ("Galway", "H91 E2K3", "")],
            ["{n} Dame Street", "{n} Oliver Plunkett Street", "{n} Shop Street"],
            ["+353 1 ### ####", "087 ### ####"]),
    Country("UK", _names("United Kingdom", "Vereinigtes Königreich", "Royaume-Uni", "Reino Unido"), "GBP", 20, "uk",
            [("London", "EC1V 9HX", ""), ("Manchester", "M1 4BT", ""), ("Edinburgh", "EH1 1YZ", ""),
             ("Bristol", "BS1 4DJ", "")],
            ["{n} Old Street", "{n} Deansgate", "{n} Royal Mile", "{n} Park Row"],
            ["+44 20 #### ####", "07### ######", "+44 161 ### ####", "0131 ### ####"]),
    Country("US", _names("USA", "USA", "États-Unis", "Estados Unidos"), "USD", 8, "us",
            [("Austin", "78701", "TX"), ("Chicago", "60607", "IL"), ("Seattle", "98101", "WA"),
             ("Boston", "02110", "MA"), ("Denver", "80202", "CO")],
            ["{n} Congress Avenue", "{n} West Randolph Street", "{n} Pine Street", "{n} Atlantic Avenue",
             "{n} Larimer Street"],
            ["(512) 555-01##", "+1 312 555 01##", "206-555-01##", "+1 (617) 555-01##"]),
    Country("CA", _names("Canada", "Kanada", "Canada", "Canadá"), "CAD", 13, "us",
            [("Toronto", "M5V 2T6", "ON"), ("Vancouver", "V6B 1A1", "BC"), ("Montréal", "H2X 1Y4", "QC")],
            ["{n} King Street West", "{n} Granville Street", "{n} rue Sainte-Catherine"],
            ["(416) 555-01##", "+1 604 555 01##", "+1 514-555-01##"]),
    Country("JP", _names("Japan", "Japan", "Japon", "Japón"), "JPY", 10, "uk",
            [("Tokyo", "150-0002", ""), ("Osaka", "530-0001", ""), ("Kyoto", "600-8216", "")],
            ["{n}-21-1 Shibuya", "{n}-4-2 Umeda", "{n}-8 Higashishiokoji"],
            ["+81 3-####-####", "03-####-####", "+81 90-####-####"]),
    Country("SE", _names("Sweden", "Schweden", "Suède", "Suecia"), None, 25, "eu",
            [("Stockholm", "111 22", ""), ("Göteborg", "411 05", "")],
            ["Drottninggatan {n}", "Kungsportsavenyen {n}"],
            ["+46 8 ### ### ##", "+46 70 ### ## ##"]),
    Country("IN", _names("India", "Indien", "Inde", "India"), None, 18, "uk",
            [("Bengaluru", "560001", ""), ("Pune", "411001", "")],
            ["{n} MG Road", "{n} FC Road"],
            ["+91 80 #### ####", "+91 98### #####"]),
]}

LANG_COUNTRIES = {"en": ["UK", "US", "IE", "CA", "DE", "NL", "CH", "SE", "JP", "IN"], "de": ["DE", "AT", "CH"],
                  "fr": ["FR", "CH"], "es": ["ES"]}

# (name, domain, country, industry); industries with invoice items: see SERVICES
COMPANIES = [
    ("Brightline Design GmbH", "brightline-design.de", "DE", "design"),
    ("Nordwind Coffee AG", "nordwind-coffee.de", "DE", "food"),
    ("Kessler & Vogt Logistik GmbH", "kessler-vogt.de", "DE", "logistics"),
    ("Datenwerk Solutions GmbH", "datenwerk.io", "DE", "software"),
    ("Druckerei Albrecht KG", "druckerei-albrecht.de", "DE", "print"),
    ("Solarkraft Nord GmbH", "solarkraft-nord.de", "DE", "energy"),
    ("Lindner Facility Services GmbH", "lindner-fs.de", "DE", "facility"),
    ("Sprachwerk Übersetzungen", "sprachwerk.de", "DE", "translation"),
    ("Alpenblick Consulting GmbH", "alpenblick-consulting.at", "AT", "consulting"),
    ("Wiener Werkstätten OG", "wiener-werkstaetten.at", "AT", "manufacturing"),
    ("Zürisee Analytics AG", "zuerisee-analytics.ch", "CH", "software"),
    ("Bergkristall Medtech AG", "bergkristall-medtech.ch", "CH", "health"),
    ("Atelier Mireille SARL", "atelier-mireille.fr", "FR", "design"),
    ("Logiciels Durand SAS", "logiciels-durand.fr", "FR", "software"),
    ("Transports Bertin & Fils", "transports-bertin.fr", "FR", "logistics"),
    ("Imprimerie du Rhône", "imprimerie-rhone.fr", "FR", "print"),
    ("Conseil Lumière SAS", "conseil-lumiere.fr", "FR", "consulting"),
    ("Solera Foods S.L.", "solerafoods.es", "ES", "food"),
    ("Tecnologías Albor S.L.", "albortec.es", "ES", "software"),
    ("Mediterránea Logística S.A.", "mediterranea-logistica.es", "ES", "logistics"),
    ("Estudio Cobalto", "estudiocobalto.es", "ES", "design"),
    ("Traducciones Nébula S.L.", "nebula-traducciones.es", "ES", "translation"),
    ("Ricci & Figli S.r.l.", "ricciefigli.it", "IT", "manufacturing"),
    ("Studio Verde Architetti", "studioverde.it", "IT", "design"),
    ("Tulpen Tech B.V.", "tulpentech.nl", "NL", "software"),
    ("Van Dijk Verpakkingen B.V.", "vandijk-verpakkingen.nl", "NL", "manufacturing"),
    ("Liffey Data Services Ltd", "liffeydata.ie", "IE", "software"),
    ("Kestrel Analytics Ltd", "kestrel-analytics.co.uk", "UK", "software"),
    ("Harbour & Pike Consulting Ltd", "harbourpike.co.uk", "UK", "consulting"),
    ("Thistle Print Co.", "thistleprint.co.uk", "UK", "print"),
    ("Greenway Facilities Ltd", "greenwayfacilities.co.uk", "UK", "facility"),
    ("Oakridge Office Supplies Ltd", "oakridge-supplies.co.uk", "UK", "hardware"),
    ("Bluefield Logistics Inc.", "bluefieldlogistics.com", "US", "logistics"),
    ("Cedar & Stone Media LLC", "cedarstone.media", "US", "design"),
    ("Northpeak Software Inc.", "northpeak.io", "US", "software"),
    ("Lakeside Health Partners", "lakesidehealth.org", "US", "health"),
    ("Ironwood Supply Co.", "ironwoodsupply.com", "US", "hardware"),
    ("Brightpath Learning Inc.", "brightpathlearning.com", "US", "education"),
    ("Summit Ridge Consulting LLC", "summitridge.co", "US", "consulting"),
    ("Maple Circuit Technologies Inc.", "maplecircuit.ca", "CA", "software"),
    ("True North Freight Ltd.", "truenorthfreight.ca", "CA", "logistics"),
    ("Laurentide Design Studio", "laurentide.studio", "CA", "design"),
    ("Hanami Robotics K.K.", "hanami-robotics.jp", "JP", "manufacturing"),
    ("Sakura Systems Co., Ltd.", "sakura-systems.jp", "JP", "software"),
    ("Nordljus Energi AB", "nordljus.se", "SE", "energy"),
    ("Indus Cloudworks Pvt. Ltd.", "induscloud.in", "IN", "software"),
    ("Klinikum Nordstadt", "klinikum-nordstadt.de", "DE", "health"),
    ("Kantonsspital Seeland", "ksseeland.ch", "CH", "health"),
    ("Hôpital Saint-Roch", "hopital-saint-roch.fr", "FR", "health"),
    ("Hospital Costa Azul", "hospitalcostaazul.es", "ES", "health"),
    ("Ospedale San Carlo", "ospedalesancarlo.it", "IT", "health"),
    ("St. Brigid's University Hospital", "stbrigids.ie", "IE", "health"),
    ("Royal Harbour Infirmary", "royalharbour.nhs.uk", "UK", "health"),
    ("Riverside General Hospital", "riversidegeneral.org", "US", "health"),
    ("Northshore Community Hospital", "northshorehospital.ca", "CA", "health"),
]

# invoice lines by the seller's industry: (description, lowest unit price, highest unit price, most units)
SERVICES = {
    "software": [("Software development (hours)", 85, 140, 60), ("Annual license, Analytics Pro", 1200, 4800, 5),
                 ("Cloud hosting, monthly plan", 49, 499, 12), ("Support retainer (monthly)", 500, 2500, 3),
                 ("Code review and security audit", 900, 3000, 1), ("API integration package", 1500, 6000, 1),
                 ("Additional user seats", 12, 35, 40), ("Database migration", 800, 4000, 1),
                 ("Bug fixing (hours)", 80, 120, 20), ("SSL certificate, 1 year", 60, 180, 3)],
    "design": [("Logo redesign", 600, 2400, 1), ("Business card layout", 90, 250, 3),
               ("Website landing page", 700, 2500, 1), ("Social media banner set", 40, 120, 6),
               ("Brand guidelines document", 900, 3200, 1), ("Photo retouching (per image)", 15, 45, 40),
               ("Packaging design, 3 variants", 1200, 3600, 1), ("Icon set (24 icons)", 300, 900, 1),
               ("Illustration for annual report", 250, 800, 5), ("Design revisions (hours)", 60, 110, 12)],
    "consulting": [("Strategy consulting (day rate)", 900, 1800, 10), ("Process analysis", 2000, 8000, 1),
                   ("Management report", 1500, 4500, 1), ("Travel expenses (flat rate)", 150, 600, 3),
                   ("Stakeholder interviews", 250, 500, 12), ("Market study Western Europe", 3500, 9000, 1),
                   ("Follow-up call (hours)", 120, 220, 6), ("Data collection and cleaning", 600, 2400, 1),
                   ("Board presentation", 800, 2000, 1), ("Supplier assessment", 400, 1200, 4)],
    "logistics": [("Pallet transport Hamburg-Munich", 95, 180, 20), ("Warehousing (per pallet, per month)", 8, 18, 60),
                  ("Express delivery surcharge", 25, 90, 5), ("Customs clearance", 80, 250, 3),
                  ("Packaging material", 15, 60, 10), ("Fuel surcharge", 20, 120, 1),
                  ("Container handling", 150, 400, 4), ("Insurance for goods in transit", 40, 200, 1),
                  ("Pick and pack service (orders)", 1, 3, 500), ("Return shipment", 12, 40, 15)],
    "print": [("Flyers A5, 135 g, 1000 pcs", 60, 140, 5), ("Business cards, 250 pcs", 25, 60, 8),
              ("Roll-up banner 85 x 200 cm", 70, 160, 4), ("Brochure, 16 pages", 2, 6, 500),
              ("Envelopes DL with logo", 0.2, 0.6, 2000), ("Poster A2", 8, 20, 30), ("Letterhead paper, 500 sheets",
                                                                                     40, 90, 4),
              ("Stickers, die-cut", 0.3, 1.2, 1000), ("Design proof", 20, 50, 2), ("Delivery", 15, 40, 1)],
    "hardware": [("USB-C docking station", 120, 260, 10), ("27-inch monitor", 180, 420, 10),
                 ("Ergonomic office chair", 220, 650, 8), ("Wireless keyboard and mouse set", 35, 90, 15),
                 ("Laptop stand, aluminium", 25, 60, 15), ("HDMI cable 2 m", 6, 15, 30),
                 ("Network switch, 24-port", 150, 380, 3), ("Noise-cancelling headset", 90, 240, 12),
                 ("Webcam 1080p", 40, 110, 10), ("Shipping and handling", 10, 45, 1)],
    "translation": [("Translation German to English, per standard page", 25, 45, 40), ("Proofreading (hours)", 40,
                                                                                       70, 10),
                    ("Certified translation of contract", 180, 450, 2), ("Terminology database setup", 300, 900, 1),
                    ("Rush fee", 50, 200, 1), ("Subtitle translation (per minute)", 6, 14, 90),
                    ("Website localization, French", 800, 2500, 1), ("Transcription (per audio hour)", 60, 120, 8),
                    ("Glossary review", 100, 300, 1), ("Formatting and layout check", 40, 120, 3)],
    "facility": [("Office cleaning (monthly)", 400, 1500, 3), ("Window cleaning", 120, 450, 2),
                 ("Carpet deep cleaning", 200, 700, 1), ("Waste disposal", 60, 180, 3), ("Plant care service", 45,
                                                                                         120, 3),
                 ("HVAC filter replacement", 90, 260, 6), ("Kitchen deep clean", 150, 380, 1),
                 ("Sanitary supplies", 30, 90, 10), ("Floor polishing", 180, 500, 1), ("Key service call-out", 50,
                                                                                       120, 2)],
}

# non-English invoices come from one industry per language: (industry, lines in that language)
SERVICES_LOCAL = {
    "de": ("software", [
        ("Softwareentwicklung (Stunden)", 90, 140, 40), ("Beratung (Stunden)", 100, 160, 20),
        ("Wartungsvertrag Server (monatlich)", 150, 600, 3), ("Anfahrtspauschale", 30, 90, 2),
        ("Schulung vor Ort, halber Tag", 450, 900, 2), ("Lizenz Buchhaltungssoftware, 1 Jahr", 200, 800, 3),
        ("Einrichtung Netzwerkdrucker", 80, 200, 2), ("Datensicherung einrichten", 250, 700, 1),
        ("Hosting Webserver (monatlich)", 29, 149, 12), ("Materialkosten", 20, 150, 1)]),
    "fr": ("design", [
        ("Refonte du logo", 600, 2000, 1), ("Maquette de site web", 900, 3000, 1),
        ("Charte graphique", 800, 2500, 1), ("Hébergement web, 12 mois", 90, 300, 1),
        ("Impression de brochures", 2, 6, 300), ("Maintenance mensuelle", 150, 500, 3),
        ("Photographies produits", 30, 80, 20), ("Rédaction de contenus (par page)", 60, 150, 10),
        ("Frais de déplacement", 80, 300, 2), ("Déclinaisons réseaux sociaux", 40, 120, 8)]),
    "es": ("logistics", [
        ("Transporte de palés Valencia-Madrid", 90, 180, 12), ("Almacenaje (palé/mes)", 8, 18, 40),
        ("Despacho de aduanas", 80, 250, 3), ("Seguro de mercancía", 40, 200, 1), ("Material de embalaje", 15, 60, 10),
        ("Recargo por combustible", 20, 120, 1), ("Preparación de pedidos", 1, 3, 400),
        ("Entrega urgente", 25, 90, 4), ("Gestión de devoluciones", 12, 40, 15), ("Alquiler de contenedor", 150, 400,
                                                                                  2)]),
}

# shops and restaurants: (name, country, kind)
MERCHANTS = {
    "en": [("FreshWay Market", "US", "grocery"), ("The Daily Grind", "US", "cafe"), ("Ironwood Hardware", "US",
                                                                                     "hardware"),
           ("Lucky Noodle House", "US", "restaurant"), ("Maple Leaf Diner", "CA", "restaurant"),
           ("Page Turner Books", "US", "books"), ("Hartley's Grocers", "UK", "grocery"),
           ("The Copper Kettle", "UK", "cafe"), ("Bridge Street Pharmacy", "UK", "pharmacy"),
           ("O'Neill's Bar & Kitchen", "IE", "restaurant"), ("Grafton Books", "IE", "books"),
           ("Ramen Ichiban", "JP", "restaurant"), ("Yonge Street Grocer", "CA", "grocery")],
    "de": [("Bäckerei Kornblume", "DE", "bakery"), ("Frischemarkt Sommer", "DE", "grocery"),
           ("Apotheke am Markt", "DE", "pharmacy"), ("Gasthaus Zum Löwen", "DE", "restaurant"),
           ("Café Lindenhof", "AT", "cafe")],
    "fr": [("Boulangerie Les Deux Moulins", "FR", "bakery"), ("Bistrot du Marché", "FR", "restaurant"),
           ("Pharmacie du Centre", "FR", "pharmacy")],
    "es": [("Supermercado La Plaza", "ES", "grocery"), ("Bar Restaurante El Faro", "ES", "restaurant"),
           ("Cafetería Alba", "ES", "cafe")],
}

# receipt lines as printed: (name, unit price in the country's main unit; JPY prices are yen)
GOODS = {
    ("grocery", "en"): [("ORGANIC BANANAS", 1.29), ("WHOLE MILK 1 GAL", 3.99), ("SOURDOUGH LOAF", 5.49),
                        ("EGGS LARGE 12CT", 4.29),
                        ("CHEDDAR SHARP 8OZ", 3.79), ("BABY SPINACH", 2.99), ("GREEK YOGURT",
                                                                              1.25), ("APPLES GALA 3LB", 4.99),
                        ("PASTA PENNE", 1.69), ("OLIVE OIL EV 500ML", 8.99), ("COFFEE BEANS 12OZ",
                                                                              10.99), ("TOMATOES VINE", 3.49)],
    ("cafe", "en"): [("Flat White", 4.25), ("Oat Latte", 5.10), ("Americano", 3.40), ("Blueberry Muffin", 3.25),
                     ("Cinnamon Roll", 3.95), ("Avocado Toast", 9.50), ("Chai Latte", 4.75), ("Sparkling Water", 2.50),
                     ("Cheese Scone", 3.10), ("Iced Tea", 3.20), ("Banana Bread", 3.60), ("Espresso", 2.80)],
    ("hardware", "en"): [("WOOD SCREWS 4X40 100PK", 6.49), ("PAINT ROLLER 9IN", 7.99), ("MASKING TAPE 2IN", 4.29),
                         ("LED BULB E27 2PK", 8.99), ("EXTENSION CORD 10FT", 12.49), ("SANDPAPER ASST", 5.99),
                         ("WALL ANCHORS 50PK", 3.79), ("DRILL BIT SET", 19.99), ("WORK GLOVES L", 9.49),
                         ("CAULK WHITE", 5.29), ("ZIP TIES 100PK", 4.99), ("DUCT TAPE", 6.99)],
    ("restaurant", "en"): [("Pad Thai", 14.50), ("Miso Ramen", 15.00), ("Spring Rolls", 7.50), ("Chicken Katsu", 16.00),
                           ("Green Salad", 9.00), ("Fish and Chips", 17.50), ("Veggie Burger", 14.00), ("Club Soda",
                                                                                                        3.00),
                           ("House Red (glass)", 9.50), ("Lemonade", 4.50), ("Cheesecake", 7.00), ("Gyoza (6)", 8.00)],
    ("books", "en"): [("The Quiet Harbour (pb)", 14.99), ("Field Guide to Birds", 24.95), ("Notebook A5 dotted", 12.00),
                      ("Cooking with Grains", 29.99), ("Kids Atlas", 18.50), ("Bookmark set", 4.50),
                      ("Poetry Today vol. 3", 16.00), ("Gift wrap", 2.00), ("Crossword Annual", 9.99),
                      ("City Map Lisbon", 8.95), ("Graphic Novel: Tides", 21.00), ("Greeting card", 3.50)],
    ("pharmacy", "en"): [("PARACETAMOL 500MG 16", 2.49), ("HAND CREAM 75ML", 4.99), ("PLASTERS ASSORTED", 3.29),
                         ("VITAMIN D 1000IU", 6.99), ("LIP BALM", 2.75), ("THROAT LOZENGES", 4.19),
                         ("SUNSCREEN SPF50", 11.49), ("TOOTHPASTE", 3.10), ("ANTISEPTIC WIPES", 2.89),
                         ("ALLERGY RELIEF 7", 5.59), ("COTTON PADS", 1.99), ("SALINE SPRAY", 6.25)],
    ("grocery", "de"): [("VOLLMILCH 3,5% 1L", 1.19), ("BIO BANANEN", 1.99), ("ROGGENBROT", 2.89), ("BUTTER 250G", 2.29),
                        ("GOUDA JUNG", 2.49), ("APFELSAFT NATURTRUEB", 1.79), ("EIER FREILAND 10ST", 3.49),
                        ("SPAGHETTI 500G", 1.29), ("TOMATEN PASSIERT", 0.99), ("KAFFEE CREMA 1KG", 13.99),
                        ("JOGHURT NATUR", 0.89), ("MINERALWASSER 6X1,5L", 3.30)],
    ("bakery", "de"): [("Laugenbrezel", 0.95), ("Roggenmischbrot", 3.80), ("Croissant", 1.40), ("Mohnschnecke", 2.10),
                       ("Kaffee groß", 3.20), ("Käsebrötchen", 2.50), ("Apfelstrudel", 3.40), ("Vollkornbrötchen",
                                                                                               0.70),
                       ("Bienenstich", 2.90), ("Cappuccino", 3.10), ("Streuselkuchen", 2.60), ("Tee", 2.40)],
    ("pharmacy", "de"): [("IBUPROFEN 400 20 ST", 4.95), ("NASENSPRAY", 3.85), ("HANDCREME", 5.49), ("PFLASTER SET",
                                                                                                    2.99),
                         ("MAGNESIUM 60 TBL", 7.45), ("LUTSCHTABLETTEN", 6.20), ("SONNENCREME LSF50", 12.90),
                         ("ZAHNSEIDE", 2.45), ("WUNDSPRAY", 6.75), ("VITAMIN C", 4.30), ("AUGENTROPFEN", 8.10),
                         ("TEE ERKAELTUNG", 3.60)],
    ("restaurant", "de"): [("Wiener Schnitzel", 19.80), ("Käsespätzle", 14.50), ("Apfelschorle 0,4", 3.90),
                           ("Helles 0,5", 4.60), ("Gemischter Salat", 7.20), ("Kaiserschmarrn",
                                                                              11.50), ("Tagessuppe", 5.80),
                           ("Schweinebraten", 17.90), ("Spezi 0,3", 3.40), ("Espresso", 2.60), ("Obatzda", 8.40),
                           ("Weißweinschorle", 5.20)],
    ("cafe", "de"): [("Melange", 4.60), ("Einspänner", 5.10), ("Sachertorte", 5.40), ("Apfelstrudel", 4.90),
                     ("Verlängerter", 4.10), ("Frühstück Wien", 11.80), ("Topfenstrudel", 4.90), ("Frucade", 3.60),
                     ("Heiße Schokolade", 4.80), ("Kipferl", 2.20), ("Soda Zitron", 3.20), ("Eierspeis", 8.50)],
    ("bakery", "fr"): [("Baguette tradition", 1.30), ("Croissant", 1.20), ("Pain au chocolat", 1.40),
                       ("Éclair café", 3.20), ("Tarte aux pommes", 3.50), ("Pain de campagne", 3.90),
                       ("Chausson aux pommes", 1.90), ("Flan pâtissier", 2.80), ("Macaron", 1.60), ("Café", 1.80),
                       ("Brioche", 4.20), ("Quiche lorraine", 4.50)],
    ("restaurant", "fr"): [("Menu du jour", 18.50), ("Salade lyonnaise", 12.00), ("Quenelle de brochet", 17.00),
                           ("Pichet de côtes-du-rhône", 14.00), ("Tarte Tatin", 7.50), ("Café gourmand", 8.50),
                           ("Eau gazeuse 50cl", 4.50), ("Steak frites", 19.00), ("Soupe à l'oignon", 9.00),
                           ("Crème brûlée", 7.00), ("Verre de Beaujolais", 5.50), ("Planche mixte", 16.00)],
    ("pharmacy", "fr"): [("DOLIPRANE 1000MG", 2.18), ("SERUM PHYSIOLOGIQUE", 3.90), ("CREME SOLAIRE SPF50", 14.90),
                         ("PANSEMENTS", 3.20), ("VITAMINE C", 6.50), ("BAUME A LEVRES", 4.10), ("SPRAY NASAL", 5.80),
                         ("GEL HYDROALCOOLIQUE", 2.90), ("PASTILLES GORGE", 5.20), ("BROSSE A DENTS", 3.50),
                         ("COTON", 1.90), ("MAGNESIUM B6", 8.90)],
    ("grocery", "es"): [("LECHE ENTERA 1L", 0.95), ("PAN DE BARRA", 0.70), ("ACEITE OLIVA VIRGEN", 7.45),
                        ("TOMATE PERA", 1.89), ("HUEVOS L 12U", 2.85), ("QUESO MANCHEGO", 5.60), ("ARROZ BOMBA 1KG",
                                                                                                  3.25),
                        ("JAMON SERRANO", 4.10), ("AGUA MINERAL 1,5L", 0.55), ("NARANJAS MALLA 2KG", 2.99),
                        ("YOGUR NATURAL 4U", 1.35), ("CAFE MOLIDO", 3.80)],
    ("restaurant", "es"): [("Menú del día", 13.50), ("Paella valenciana", 16.00), ("Croquetas caseras", 7.50),
                           ("Patatas bravas", 5.50), ("Caña", 2.20), ("Agua 50cl", 1.80), ("Tinto de verano", 3.00),
                           ("Pulpo a la gallega", 15.00), ("Flan casero", 4.00), ("Café solo", 1.40),
                           ("Ensalada mixta", 7.00), ("Tortilla española", 6.50)],
    ("cafe", "es"): [("Café con leche", 1.60), ("Tostada con tomate", 2.50), ("Zumo de naranja", 2.80),
                     ("Churros (6)", 3.20), ("Cortado", 1.40), ("Croissant mixto", 3.60), ("Chocolate caliente", 2.40),
                     ("Magdalena", 1.20), ("Infusión", 1.50), ("Bocadillo de jamón", 4.50), ("Agua con gas", 1.70),
                     ("Napolitana", 1.80)],
}

UNIVERSITIES = {
    "DE": ["Humboldt-Universität zu Berlin", "Universität Leipzig", "Universität Hamburg"],
    "AT": ["Universität Wien", "Universität Graz"], "CH": ["Universität Zürich", "Universität Basel"],
    "FR": ["Université Lyon 2", "Sorbonne Université", "Université de Nantes"],
    "ES": ["Universidad Complutense de Madrid", "Universitat de València", "Universidad de Sevilla"],
    "IT": ["Università di Bologna", "Università degli Studi di Milano"],
    "NL": ["Universiteit Utrecht", "University of Amsterdam"], "IE": ["Trinity College Dublin",
                                                                      "University College Cork"],
    "UK": ["University of Manchester", "University of Edinburgh", "University of Bristol"],
    "US": ["University of Texas at Austin", "Northeastern University", "University of Washington"],
    "CA": ["University of Toronto", "McGill University"], "JP": ["Keio University", "Osaka University"],
    "SE": ["Stockholm University", "Lund University"], "IN": ["University of Mumbai", "University of Pune"],
}


@dataclass(frozen=True)
class Profession:
    """A line of work: titles from junior to senior, skills, requirements and the phrases around them."""

    titles: list        # junior -> senior
    skills: list
    requirements: list  # short phrases for job postings
    degrees: list       # first -> highest, so the first k make a plausible path
    area: str           # "... years of experience in {area}"
    duties: list        # one-line achievements for resumes
    industries: tuple   # where such people work; empty: anywhere
    remote_ok: bool     # whether postings may offer remote work


PROFESSIONS = {
    "software": Profession(
        ["Junior Software Developer", "Software Engineer", "Senior Software Engineer", "Staff Engineer",
         "Engineering Manager"],
        ["Python", "Go", "Java", "PostgreSQL", "Docker", "Kubernetes", "AWS", "Terraform", "React", "TypeScript",
         "gRPC",
         "Kafka", "CI/CD", "Linux"],
        ["3+ years of backend development experience", "Strong Python or Go skills", "Experience with PostgreSQL",
         "Familiarity with Docker and Kubernetes", "Experience with AWS or GCP", "Good understanding of REST APIs",
         "Experience writing automated tests", "Fluent English", "Degree in Computer Science or similar",
         "Experience with event-driven systems", "Comfortable doing code reviews", "Basic knowledge of Terraform"],
        ["B.Sc. Computer Science", "M.Sc. Software Engineering", "PhD in Computer Science"],
        "backend development",
        ["Cut API latency by 40% by redesigning the caching layer", "Led the migration from a monolith to services",
         "Mentored four junior developers", "Introduced contract tests for all public APIs"],
        ("software",), True),
    "data": Profession(
        ["Data Analyst", "Data Scientist", "Senior Data Scientist", "Lead Data Scientist", "Head of Data"],
        ["SQL", "Python", "pandas", "scikit-learn", "Tableau", "Power BI", "dbt", "Airflow", "Spark", "A/B testing",
         "Statistics", "Looker", "BigQuery", "R"],
        ["2+ years in a data analyst or data science role", "Excellent SQL", "Experience with Python and pandas",
         "Solid grasp of statistics", "Experience with dashboards in Tableau or Looker", "Experience with dbt",
         "Ability to explain results to non-technical colleagues", "Master's degree in a quantitative field",
         "Experience designing A/B tests", "Fluent English", "Knowledge of Airflow is a plus", "Curiosity"],
        ["B.Sc. Statistics", "M.Sc. Data Science", "PhD in Economics"],
        "analytics and machine learning",
        ["Built the churn model used by the retention team", "Set up the company's first dbt project",
         "Automated weekly reporting, saving 10 hours a week", "Designed and evaluated 30+ A/B tests"],
        ("software", "consulting", "health", "energy", "food", "education"), True),
    "design": Profession(
        ["Junior UX Designer", "UX Designer", "Senior Product Designer", "Lead Designer", "Design Director"],
        ["Figma", "Sketch", "User research", "Prototyping", "Design systems", "Accessibility", "Adobe Illustrator",
         "Usability testing", "Interaction design", "HTML/CSS", "Wireframing", "Motion design"],
        ["Portfolio showing end-to-end product work", "3+ years of product design experience", "Expert in Figma",
         "Experience running user interviews", "Knowledge of accessibility guidelines (WCAG)",
         "Experience with design systems", "Strong visual design skills", "Good communication in English",
         "Basic HTML/CSS", "Experience with usability testing", "Ability to work with engineers daily"],
        ["B.A. Communication Design", "M.A. Interaction Design", "Certificate in Service Design"],
        "product and UX design",
        ["Redesigned the checkout, raising conversion by 12%", "Built and maintained the design system",
         "Ran 40+ usability sessions", "Led the accessibility audit of the mobile app"],
        ("design", "software", "education"), True),
    "marketing": Profession(
        ["Marketing Assistant", "Marketing Manager", "Senior Marketing Manager", "Head of Marketing",
         "Chief Marketing Officer"],
        ["SEO", "Google Ads", "Content strategy", "HubSpot", "Copywriting", "Email marketing", "Brand management",
         "Google Analytics", "Social media", "Event marketing", "Budget planning", "Market research"],
        ["3 years of B2B marketing experience", "Experience with HubSpot or Salesforce", "Excellent writing skills",
         "Hands-on experience with Google Ads", "Good knowledge of SEO", "Data-driven mindset",
         "Fluent English and German", "Experience managing agencies", "Degree in marketing or similar",
         "Experience with budget planning", "Willingness to travel occasionally"],
        ["B.A. Business Administration", "M.Sc. International Management", "Executive MBA"],
        "B2B marketing",
        ["Grew inbound leads by 65% in two years", "Relaunched the company website",
         "Managed a yearly budget of 1.2 million", "Built the newsletter from zero to 20,000 subscribers"],
        (), True),
    "finance": Profession(
        ["Accounts Assistant", "Accountant", "Senior Accountant", "Finance Manager", "Head of Finance"],
        ["IFRS", "Excel", "SAP FI", "DATEV", "Month-end closing", "Budgeting", "Cash flow forecasting", "Power BI",
         "Tax compliance", "Accounts payable", "Consolidation", "Audit preparation"],
        ["Qualified accountant (ACCA, CIMA or similar)", "3+ years in accounting", "Strong Excel skills",
         "Experience with SAP", "Knowledge of IFRS", "Experience with month-end closing", "Attention to detail",
         "Fluent English", "Experience preparing audits", "Knowledge of VAT rules", "Good communication skills"],
        ["B.A. Accounting and Finance", "M.Sc. Finance", "MBA"],
        "accounting and financial reporting",
        ["Shortened month-end closing from 10 to 5 days", "Introduced rolling cash flow forecasts",
         "Prepared two clean external audits", "Moved invoice approval into SAP"],
        (), True),
    "logistics": Profession(
        ["Logistics Coordinator", "Supply Chain Planner", "Senior Supply Chain Planner", "Logistics Manager",
         "Head of Supply Chain"],
        ["SAP MM", "Demand planning", "Inventory management", "Excel", "Incoterms", "Warehouse management systems",
         "Lean", "Procurement", "Transport planning", "Customs", "Supplier management", "Forecasting"],
        ["Training in logistics or supply chain", "2+ years in transport or warehouse planning",
         "Experience with SAP MM",
         "Good knowledge of Incoterms", "Strong Excel skills", "Forklift licence", "Driving licence (class B)",
         "Willingness to work shifts", "Good English", "Hands-on attitude", "Experience with customs paperwork"],
        ["B.Sc. Logistics", "M.Sc. Supply Chain Management", "MBA"],
        "supply chain planning",
        ["Cut stock levels by 18% without service loss", "Rolled out a new warehouse management system",
         "Negotiated freight contracts across 12 countries", "Introduced weekly S&OP meetings"],
        ("logistics", "manufacturing", "food", "hardware"), False),
    "nursing": Profession(
        ["Nursing Assistant", "Registered Nurse", "Senior Staff Nurse", "Ward Manager", "Nursing Director"],
        ["Patient care", "Wound care", "Medication administration", "Triage", "ICU care", "Electronic health records",
         "Infection control", "Patient education", "Basic life support", "Palliative care", "Team leadership",
         "Phlebotomy"],
        ["Registered nurse licence", "At least 1 year of hospital experience", "Basic life support certificate",
         "Willingness to work nights and weekends", "Experience with electronic health records",
         "Excellent communication skills", "Empathy and patience", "Experience in intensive care is a plus",
         "Good command of English", "Ability to work under pressure"],
        ["Diploma in Nursing", "B.Sc. Nursing", "M.Sc. Advanced Nursing Practice"],
        "hospital nursing",
        ["Coordinated care for a 28-bed surgical ward", "Trained new staff in infection control",
         "Introduced a new handover checklist", "Led the ward's move to electronic records"],
        ("health",), False),
}


@dataclass(frozen=True)
class LocalProfession:
    """One line of work written in German, French or Spanish, for the non-English documents."""

    titles: list
    skills: list
    requirements: list
    degrees: list
    summary: str         # with {title} and {years}
    fresh_summary: str   # for someone without jobs yet
    people: list         # (first, last) whose grammatical gender fits the titles
    posting_titles: list  # as job ads write them, e.g. "(m/w/d)"
    industries: tuple     # where such people work; empty: anywhere
    remote_ok: bool       # whether postings may offer remote work


LOCAL = {
    "de": LocalProfession(
        ["Buchhaltungsassistentin", "Finanzbuchhalterin", "Bilanzbuchhalterin", "Leiterin Rechnungswesen"],
        ["DATEV", "SAP FI/CO", "HGB-Abschlüsse", "Excel", "Lohnbuchhaltung", "Kostenrechnung", "Umsatzsteuer",
         "Mahnwesen", "Reisekostenabrechnung", "Power BI", "Zahlungsverkehr"],
        ["Abgeschlossene kaufmännische Ausbildung", "Mindestens 3 Jahre Berufserfahrung in der Buchhaltung",
         "Sehr gute Kenntnisse in DATEV", "Sicherer Umgang mit MS Excel", "Kenntnisse im Umsatzsteuerrecht",
         "Sehr gute Deutsch- und gute Englischkenntnisse", "Selbstständige und strukturierte Arbeitsweise",
         "Erfahrung mit SAP FI", "Teamfähigkeit und Zuverlässigkeit", "Führerschein Klasse B",
         "Bereitschaft zur Weiterbildung"],
        ["Bachelor Betriebswirtschaftslehre", "Master Finance and Accounting", "Executive MBA"],
        "{title} mit {years} Jahren Erfahrung in Finanzbuchhaltung und Jahresabschluss.",
        "Absolventin der Betriebswirtschaftslehre mit Schwerpunkt Rechnungswesen, auf der Suche nach dem "
        "Berufseinstieg.",
        [("Katharina", "Wagner"), ("Miriam", "Krüger"), ("Sophie", "Neumann"), ("Zeynep", "Demir")],
        ["Finanzbuchhalter (m/w/d)", "Bilanzbuchhalter (m/w/d)", "Sachbearbeiter Kreditorenbuchhaltung (m/w/d)"],
        (), True),
    "fr": LocalProfession(
        ["Assistante marketing", "Chargée de marketing digital", "Responsable marketing", "Directrice marketing"],
        ["SEO", "Google Ads", "Stratégie de contenu", "HubSpot", "Rédaction web", "Réseaux sociaux", "Emailing",
         "Google Analytics", "Gestion de projet", "Canva", "Relations presse"],
        ["Bac +5 en marketing ou école de commerce", "3 ans d'expérience minimum en marketing digital",
         "Maîtrise de Google Ads et de Google Analytics", "Excellentes qualités rédactionnelles", "Anglais courant",
         "Connaissance de HubSpot appréciée", "Sens de l'organisation et rigueur", "Esprit d'équipe",
         "Expérience en gestion de budget", "Permis B", "Créativité"],
        ["Licence Information-Communication", "Master Marketing Digital", "Executive MBA"],
        "{title} avec {years} ans d'expérience en marketing digital B2B.",
        "Jeune diplômée en marketing digital à la recherche d'un premier poste.",
        [("Élodie", "Garnier"), ("Camille", "Rousseau"), ("Chloé", "Fontaine"), ("Layla", "Haddad")],
        ["Chargé de marketing digital (H/F)", "Responsable marketing (H/F)", "Assistant marketing (H/F)"],
        (), True),
    "es": LocalProfession(
        ["Auxiliar de logística", "Técnico de logística", "Coordinador de logística", "Jefe de almacén"],
        ["SAP MM", "Gestión de inventarios", "Excel avanzado", "Incoterms", "Planificación de rutas", "Aduanas",
         "Lean manufacturing", "Gestión de proveedores", "Carretilla elevadora", "Control de stock", "Inglés B2"],
        ["Grado en Administración y Dirección de Empresas o similar", "Experiencia mínima de 2 años en logística",
         "Nivel alto de inglés", "Dominio de Excel", "Carné de conducir B", "Conocimientos de SAP",
         "Capacidad de trabajo en equipo", "Disponibilidad para trabajar a turnos", "Conocimiento de Incoterms",
         "Carnet de carretillero", "Orientación a resultados"],
        ["Grado en Administración y Dirección de Empresas", "Máster en Logística Integral", "Executive MBA"],
        "{title} con {years} años de experiencia en logística y gestión de almacenes.",
        "Recién titulado en logística que busca su primera experiencia profesional.",
        [("Javier", "Romero"), ("Diego", "Navarro"), ("Álvaro", "Ortega"), ("Mateo", "Sánchez")],
        ["Técnico/a de logística", "Coordinador/a de almacén", "Responsable de logística"],
        ("logistics", "manufacturing", "food", "hardware"), False),
}

# events: title patterns per kind ({city}, {year}, {topic}, {n} filled in), organizers per kind, venues per city
EVENT_TITLES = {
    "conference": ["{topic} Summit {year}", "{topic} Europe {year}", "{city} {topic} Days {year}",
                   "International Conference on {topic} {year}"],
    "meetup": ["{city} {topic} Meetup #{n}", "{topic} Night {city}", "{topic} Community Meetup: Spring Edition",
               "{city} {topic} User Group"],
    "webinar": ["Webinar: Getting Started with {topic}", "{topic} in Practice: Live Q&A", "{topic} for Beginners",
                "Ask the Experts: {topic}"],
    "concert": ["Vivaldi's Four Seasons by Candlelight", "The Night Owls Live", "Jazz at the Lake",
                "Symphony No. 9 - Season Finale", "The Blue Lanterns: Farewell Tour"],
}
EVENT_ORGANIZERS = {
    "conference": ["Open Source Alliance Europe", "GreenTech Forum gGmbH", "European Data Society",
                   "Kestrel Analytics Ltd", "Northpeak Software Inc."],
    "meetup": ["{topic} Community {city}", "Women in Data Network", "Product People Network"],
    "webinar": ["Kestrel Analytics Ltd", "Northpeak Software Inc.", "Datenwerk Solutions GmbH",
                "Maple Circuit Technologies Inc.", "Women in Data Network"],
    "concert": ["Friends of the Philharmonic", "City Arts Council", "{city} Chamber Music Society",
                "Nightbird Concerts"],
}
# (title, organizer, what a listing calls it) for kind "other", per language
OTHER_EVENTS = {
    "en": [("Charity Run for the Children's Hospital", "Runners United", "Charity run"),
           ("Open House {year}", "Brightline Design GmbH", "Open day"),
           ("Street Food Festival {city}", "City Arts Council", "Festival"),
           ("Spring Flea Market", "{city} Neighbourhood Association", "Market"),
           ("Autumn Wine Tasting", "Cellar Door Wine Club", "Tasting"),
           ("Repair Café {city}", "{city} Repair Network", "Community event")],
    "de": [("Sommerfest {city}", "Nachbarschaftsverein {city} e.V.", "Fest"),
           ("Flohmarkt am Kanal", "Stadtteilverein {city}", "Markt"),
           ("Tag der offenen Tür {year}", "Datenwerk Solutions GmbH", "Offener Tag")],
    "fr": [("Fête de quartier {city}", "Comité des fêtes de {city}", "Fête"),
           ("Marché de Noël de {city}", "Office du tourisme de {city}", "Marché"),
           ("Journée portes ouvertes {year}", "Atelier Mireille SARL", "Portes ouvertes")],
    "es": [("Feria del Libro de {city}", "Ayuntamiento de {city}", "Feria"),
           ("Mercadillo solidario", "Asociación Vecinal de {city}", "Mercadillo"),
           ("Jornada de puertas abiertas {year}", "Tecnologías Albor S.L.", "Puertas abiertas")],
}
TOPICS = ["Cloud Security", "Data Engineering", "Rust", "Python", "Open Source", "Product Management", "GreenTech",
          "FinTech", "UX Research", "Kubernetes", "Accessibility", "Robotics"]
VENUES = {
    "Berlin": ["Kulturbrauerei", "Factory Berlin", "Umspannwerk Alexanderplatz"], "Hamburg": ["Kampnagel",
                                                                                              "Elbphilharmonie"],
    "München": ["Werksviertel-Mitte", "Gasteig HP8"], "Wien": ["MuseumsQuartier", "Wiener Konzerthaus"],
    "Zürich": ["Kongresshaus Zürich", "Impact Hub Zürich"], "Paris": ["Station F", "La Cigale"],
    "Lyon": ["Halle Tony Garnier", "La Sucrière"], "Madrid": ["Espacio Rastro", "Teatro Circo Price"],
    "Barcelona": ["Palau de la Música", "Pier01 Barcelona Tech City"], "London": ["Barbican Centre", "Rich Mix"],
    "Manchester": ["Bridgewater Hall", "Manchester Central"], "Dublin": ["The Convention Centre Dublin",
                                                                         "Vicar Street"],
    "Amsterdam": ["Paradiso", "Zuiderkerk"], "Austin": ["Palmer Events Center", "Capital Factory"],
    "Chicago": ["Navy Pier", "Thalia Hall"], "Toronto": ["Roy Thomson Hall", "The Great Hall"],
    "Seattle": ["Benaroya Hall", "Fremont Abbey"],
}
