package main

// Name pools by culture and script: given names and surnames. Entries at
// even positions go to the develop set, odd ones to the holdout set, so the
// holdout names were never in the develop set.
var cultures = []struct {
	name            string
	given, surnames []string
	latin           bool // written in Latin letters
}{
	{"us", []string{"James", "Linda", "Robert", "Patricia", "Michael", "Jennifer", "David", "Susan", "Kevin", "Megan", "Brian", "Ashley"},
		[]string{"Johnson", "Miller", "Davis", "Wilson", "Anderson", "Thompson", "Martinez", "Robinson", "Clark", "Lewis", "Walker", "Hall"}, true},
	{"uk", []string{"Oliver", "Amelia", "Harry", "Isla", "George", "Poppy", "Alfie", "Freya", "Archie", "Imogen"},
		[]string{"Pritchard", "Whitfield", "Ashworth", "Hargreaves", "Cartwright", "Fairbairn", "Ogilvie", "Pennington", "Sutcliffe", "Thistlethwaite"}, true},
	{"hispanic", []string{"Alejandro", "Lucía", "Santiago", "Valentina", "Mateo", "Camila", "Diego", "Ximena", "Joaquín", "Florencia"},
		[]string{"García", "Hernández", "Rodríguez", "Gutiérrez", "Ramírez", "Castillo", "Vázquez", "Mendoza", "Ibáñez", "Echeverría"}, true},
	{"german", []string{"Jürgen", "Ursula", "Matthias", "Anneliese", "Klaus", "Sabine", "Wolfgang", "Brigitte", "Dieter", "Heike"},
		[]string{"Müller", "Schneider", "Weißmann", "Hoffmann", "Schäfer", "Köhler", "Krüger", "Zimmermann", "Baumgärtner", "Nußbaum"}, true},
	{"french", []string{"Élodie", "Théo", "Céline", "Benoît", "Margaux", "Jérôme", "Gaëlle", "François", "Noémie", "Hélène"},
		[]string{"Dubois", "Lefèvre", "Moreau", "Giraud", "Rousseau", "Chevalier", "Lemaître", "Faucher", "Duchêne", "Beaumont"}, true},
	{"italian", []string{"Giuseppe", "Chiara", "Lorenzo", "Francesca", "Alessandro", "Giulia", "Matteo", "Martina"},
		[]string{"Rossi", "Esposito", "Bianchi", "Colombo", "Ricci", "Marino", "Greco", "Bruno"}, true},
	{"polish", []string{"Krzysztof", "Agnieszka", "Wojciech", "Małgorzata", "Grzegorz", "Katarzyna", "Paweł", "Zofia"},
		[]string{"Kowalski", "Wiśniewska", "Wójcik", "Kamińska", "Lewandowski", "Zielińska", "Szymański", "Woźniak"}, true},
	{"nordic", []string{"Sigrid", "Lars", "Ingrid", "Bjørn", "Astrid", "Håkon", "Solveig", "Mikael"},
		[]string{"Johansson", "Lindqvist", "Sørensen", "Halvorsen", "Nyström", "Bergström", "Åberg", "Kristiansen"}, true},
	{"turkish", []string{"Mehmet", "Ayşe", "Emre", "Zeynep", "Burak", "Elif", "Oğuz", "Gülşen"},
		[]string{"Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Öztürk", "Aydın", "Arslan"}, true},
	{"indian", []string{"Priya", "Arjun", "Ananya", "Rohan", "Kavya", "Vikram", "Deepika", "Siddharth", "Meera", "Rahul"},
		[]string{"Sharma", "Patel", "Iyer", "Reddy", "Banerjee", "Nair", "Chatterjee", "Gupta", "Menon", "Krishnan"}, true},
	{"chinese-latin", []string{"Wei", "Xiaoling", "Jun", "Meiling", "Hao", "Yuxin", "Zhiwei", "Lihua"},
		[]string{"Zhang", "Wang", "Liu", "Chen", "Huang", "Zhao", "Zhou", "Xu"}, true},
	{"vietnamese", []string{"Minh", "Thảo", "Quang", "Ngọc", "Tuấn", "Lan"},
		[]string{"Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Đặng"}, true},
	{"japanese-latin", []string{"Haruto", "Yui", "Sota", "Aoi", "Ren", "Hina"},
		[]string{"Takahashi", "Watanabe", "Yamamoto", "Nakamura", "Kobayashi", "Yoshida"}, true},
	{"korean-latin", []string{"Minjun", "Seoyeon", "Jihoon", "Hayoon", "Dohyun", "Jiwoo"},
		[]string{"Kim", "Park", "Choi", "Jung", "Kang", "Yoon"}, true},
	{"arabic-latin", []string{"Ahmed", "Fatima", "Omar", "Layla", "Youssef", "Nour", "Karim", "Amira"},
		[]string{"Al-Farsi", "Haddad", "Mansour", "El-Sayed", "Khalil", "Nasser", "Aziz", "Saleh"}, true},
	{"african", []string{"Chinedu", "Amara", "Kwame", "Nneka", "Tendai", "Abena", "Oluwaseun", "Zanele"},
		[]string{"Okafor", "Mensah", "Adeyemi", "Dlamini", "Mwangi", "Boateng", "Nkosi", "Okonkwo"}, true},
	{"irish", []string{"Siobhán", "Ciarán", "Aoife", "Seán", "Niamh", "Pádraig"},
		[]string{"O'Brien", "McCarthy", "O'Sullivan", "Ní Bhriain", "Fitzgerald", "MacNamara"}, true},
	{"russian", []string{"Дмитрий", "Анна", "Сергей", "Ольга", "Алексей", "Татьяна"},
		[]string{"Иванов", "Смирнова", "Кузнецов", "Попова", "Соколов", "Лебедева"}, false},
	{"greek", []string{"Γιώργος", "Μαρία", "Νίκος", "Ελένη"},
		[]string{"Παπαδόπουλος", "Οικονόμου", "Γεωργίου", "Νικολάου"}, false},
	{"arabic", []string{"محمد", "فاطمة", "علي", "مريم"},
		[]string{"الحسن", "العلي", "منصور", "حداد"}, false},
	{"hebrew", []string{"נועה", "יוסף", "תמר", "דוד"},
		[]string{"כהן", "לוי", "מזרחי", "פרץ"}, false},
	{"hindi", []string{"प्रिया", "राहुल", "अनीता", "विजय"},
		[]string{"शर्मा", "वर्मा", "सिंह", "गुप्ता"}, false},
	{"thai", []string{"สมชาย", "สุดา", "ประเสริฐ", "มาลี"},
		[]string{"ใจดี", "รักไทย", "ศรีสุข", "บุญมา"}, false},
}

// CJK names are written surname first with no space.
var cjkNames = []string{"张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "佐藤健", "鈴木花子", "田中太郎", "高橋美咲", "김민준", "이서연", "박지훈", "최수빈", "정하윤", "강도현"}

// Street lines: US, PO boxes, European and Asian forms.
var streets = []string{
	"1600 Amphitheatre Parkway", "742 Evergreen Terrace", "350 Fifth Avenue", "221 Baker Street",
	"4059 Mount Lee Drive", "1 Infinite Loop", "55 Water St", "1234 Elm St. Apt 5B", "88 Colin P Kelly Jr St",
	"500 W Madison Ave Suite 1200", "9 Oak Lane", "77 Massachusetts Ave", "2300 N Lincoln Blvd", "16 Pine Ridge Rd",
	"410 Terry Ave N", "3180 18th St", "1 Microsoft Way", "600 Congress Ave #1400", "12 Harbor View Ct", "901 Cherry Ave",
	"PO Box 1234", "P.O. Box 77", "P.O. Box 9021", "PO Box 66",
	"Hauptstraße 12", "Kurfürstendamm 21", "Schillerstr. 4a", "Bahnhofstrasse 7", "Am Sandtorkai 50", "Lindenweg 3",
	"12 rue de Rivoli", "5 avenue Anatole France", "27 boulevard Haussmann", "3 place Bellecour",
	"Via Roma 15", "Via dei Fori Imperiali 1", "Corso Buenos Aires 33", "Piazza Navona 2",
	"Calle Mayor 5", "Avenida de la Constitución 20", "Carrer de Mallorca 401", "Rua Augusta 274",
	"Kungsgatan 44", "Prinsengracht 263", "Damrak 1", "Storgata 8", "Nørregade 10", "Mannerheimintie 12",
	"ul. Marszałkowska 84", "Andrássy út 60", "Václavské náměstí 1",
	"10 Downing Street", "1 Princes Street", "Flat 3, 45 Victoria Road",
	"1-9-1 Marunouchi", "東京都千代田区丸の内1-9-1", "北京市朝阳区建国路88号", "上海市浦东新区世纪大道100号",
	"서울특별시 중구 세종대로 110", "台北市信義區市府路1號", "2-11-3 Meguro",
}

var companies = []string{"Acme Corp", "Globex", "Initech", "Umbrella Ltd", "Stark Industries", "Wayne Enterprises", "Hooli", "Vandelay Industries"}

var cities = []string{"Springfield", "Berlin", "Lyon", "Milano", "Madrid", "Stockholm", "Tokyo", "Seoul", "Austin", "Leeds"}
