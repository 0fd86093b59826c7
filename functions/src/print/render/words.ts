// The document's own words (header and footer labels, "Page X of Y", booleans, markers), per
// language: the locale's language (Chinese by script), else English.

export interface Words {
  objectType: string;
  target: string;
  /** "Page 1 of 3" */
  page: (page: number, pages: number) => string;
  /** The footer: instance id and generation time. */
  footer: (instanceId: string, generated: string) => string;
  /** A table's label on the pages it continues on. */
  continued: (label: string) => string;
  noFields: string;
  noSections: string;
  section: (n: number) => string;
  untitled: string;
  yes: string;
  no: string;
  imageUnavailable: string;
  /** A signed PDF's signature field, as assistive technology names it (/TU). */
  signature: string;
}

type Table = Omit<Words, "page" | "footer" | "continued" | "section"> & {
  /** "{n}" and "{total}" are replaced. */
  page: string;
  instance: string;
  generated: string;
  continued: string;
  section: string;
};

const TABLES: Record<string, Table> = {
  en: { objectType: "Object type", target: "Target", page: "Page {n} of {total}", instance: "Instance", generated: "Generated", continued: "continued", noFields: "No fields", noSections: "This object has no sections.", section: "Section {n}", untitled: "Untitled", yes: "Yes", no: "No", imageUnavailable: "image unavailable", signature: "Digital signature" },
  de: { objectType: "Objekttyp", target: "Ziel", page: "Seite {n} von {total}", instance: "Instanz", generated: "Erstellt", continued: "Fortsetzung", noFields: "Keine Felder", noSections: "Dieses Objekt hat keine Abschnitte.", section: "Abschnitt {n}", untitled: "Ohne Titel", yes: "Ja", no: "Nein", imageUnavailable: "Bild nicht verfügbar", signature: "Digitale Signatur" },
  fr: { objectType: "Type d’objet", target: "Cible", page: "Page {n} sur {total}", instance: "Instance", generated: "Généré le", continued: "suite", noFields: "Aucun champ", noSections: "Cet objet n’a aucune section.", section: "Section {n}", untitled: "Sans titre", yes: "Oui", no: "Non", imageUnavailable: "image indisponible", signature: "Signature numérique" },
  es: { objectType: "Tipo de objeto", target: "Destino", page: "Página {n} de {total}", instance: "Instancia", generated: "Generado", continued: "continuación", noFields: "Sin campos", noSections: "Este objeto no tiene secciones.", section: "Sección {n}", untitled: "Sin título", yes: "Sí", no: "No", imageUnavailable: "imagen no disponible", signature: "Firma digital" },
  it: { objectType: "Tipo di oggetto", target: "Destinazione", page: "Pagina {n} di {total}", instance: "Istanza", generated: "Generato", continued: "continua", noFields: "Nessun campo", noSections: "Questo oggetto non ha sezioni.", section: "Sezione {n}", untitled: "Senza titolo", yes: "Sì", no: "No", imageUnavailable: "immagine non disponibile", signature: "Firma digitale" },
  pt: { objectType: "Tipo de objeto", target: "Destino", page: "Página {n} de {total}", instance: "Instância", generated: "Gerado", continued: "continuação", noFields: "Sem campos", noSections: "Este objeto não tem secções.", section: "Secção {n}", untitled: "Sem título", yes: "Sim", no: "Não", imageUnavailable: "imagem indisponível", signature: "Assinatura digital" },
  nl: { objectType: "Objecttype", target: "Doel", page: "Pagina {n} van {total}", instance: "Instantie", generated: "Gegenereerd", continued: "vervolg", noFields: "Geen velden", noSections: "Dit object heeft geen secties.", section: "Sectie {n}", untitled: "Zonder titel", yes: "Ja", no: "Nee", imageUnavailable: "afbeelding niet beschikbaar", signature: "Digitale handtekening" },
  pl: { objectType: "Typ obiektu", target: "Cel", page: "Strona {n} z {total}", instance: "Instancja", generated: "Wygenerowano", continued: "ciąg dalszy", noFields: "Brak pól", noSections: "Ten obiekt nie ma sekcji.", section: "Sekcja {n}", untitled: "Bez tytułu", yes: "Tak", no: "Nie", imageUnavailable: "obraz niedostępny", signature: "Podpis cyfrowy" },
  sv: { objectType: "Objekttyp", target: "Mål", page: "Sida {n} av {total}", instance: "Instans", generated: "Skapad", continued: "fortsättning", noFields: "Inga fält", noSections: "Det här objektet har inga avsnitt.", section: "Avsnitt {n}", untitled: "Namnlös", yes: "Ja", no: "Nej", imageUnavailable: "bilden är inte tillgänglig", signature: "Digital signatur" },
  ru: { objectType: "Тип объекта", target: "Цель", page: "Страница {n} из {total}", instance: "Экземпляр", generated: "Создано", continued: "продолжение", noFields: "Нет полей", noSections: "У этого объекта нет разделов.", section: "Раздел {n}", untitled: "Без названия", yes: "Да", no: "Нет", imageUnavailable: "изображение недоступно", signature: "Цифровая подпись" },
  uk: { objectType: "Тип об’єкта", target: "Ціль", page: "Сторінка {n} з {total}", instance: "Екземпляр", generated: "Створено", continued: "продовження", noFields: "Немає полів", noSections: "Цей об’єкт не має розділів.", section: "Розділ {n}", untitled: "Без назви", yes: "Так", no: "Ні", imageUnavailable: "зображення недоступне", signature: "Цифровий підпис" },
  tr: { objectType: "Nesne türü", target: "Hedef", page: "Sayfa {n} / {total}", instance: "Örnek", generated: "Oluşturulma", continued: "devamı", noFields: "Alan yok", noSections: "Bu nesnenin bölümü yok.", section: "Bölüm {n}", untitled: "Başlıksız", yes: "Evet", no: "Hayır", imageUnavailable: "görüntü kullanılamıyor", signature: "Dijital imza" },
  ar: { objectType: "نوع الكائن", target: "الهدف", page: "الصفحة {n} من {total}", instance: "المثيل", generated: "تاريخ الإنشاء", continued: "تابع", noFields: "لا توجد حقول", noSections: "لا يحتوي هذا الكائن على أقسام.", section: "القسم {n}", untitled: "بدون عنوان", yes: "نعم", no: "لا", imageUnavailable: "الصورة غير متاحة", signature: "التوقيع الرقمي" },
  he: { objectType: "סוג אובייקט", target: "יעד", page: "עמוד {n} מתוך {total}", instance: "מופע", generated: "נוצר", continued: "המשך", noFields: "אין שדות", noSections: "לאובייקט זה אין סעיפים.", section: "סעיף {n}", untitled: "ללא כותרת", yes: "כן", no: "לא", imageUnavailable: "התמונה אינה זמינה", signature: "חתימה דיגיטלית" },
  hi: { objectType: "ऑब्जेक्ट प्रकार", target: "लक्ष्य", page: "पृष्ठ {n} / {total}", instance: "इंस्टेंस", generated: "बनाया गया", continued: "जारी", noFields: "कोई फ़ील्ड नहीं", noSections: "इस ऑब्जेक्ट में कोई अनुभाग नहीं है।", section: "अनुभाग {n}", untitled: "शीर्षकहीन", yes: "हाँ", no: "नहीं", imageUnavailable: "चित्र उपलब्ध नहीं", signature: "डिजिटल हस्ताक्षर" },
  th: { objectType: "ประเภทออบเจ็กต์", target: "เป้าหมาย", page: "หน้า {n} จาก {total}", instance: "อินสแตนซ์", generated: "สร้างเมื่อ", continued: "ต่อ", noFields: "ไม่มีฟิลด์", noSections: "ออบเจ็กต์นี้ไม่มีส่วน", section: "ส่วนที่ {n}", untitled: "ไม่มีชื่อ", yes: "ใช่", no: "ไม่ใช่", imageUnavailable: "ไม่มีรูปภาพ", signature: "ลายเซ็นดิจิทัล" },
  ja: { objectType: "オブジェクトの種類", target: "対象", page: "{total} ページ中 {n} ページ", instance: "インスタンス", generated: "作成日時", continued: "続き", noFields: "項目なし", noSections: "このオブジェクトにはセクションがありません。", section: "セクション {n}", untitled: "無題", yes: "はい", no: "いいえ", imageUnavailable: "画像を表示できません", signature: "デジタル署名" },
  ko: { objectType: "개체 유형", target: "대상", page: "{total}페이지 중 {n}페이지", instance: "인스턴스", generated: "생성 일시", continued: "계속", noFields: "필드 없음", noSections: "이 개체에는 섹션이 없습니다.", section: "섹션 {n}", untitled: "제목 없음", yes: "예", no: "아니요", imageUnavailable: "이미지를 사용할 수 없음", signature: "디지털 서명" },
  "zh-Hans": { objectType: "对象类型", target: "目标", page: "第 {n} 页，共 {total} 页", instance: "实例", generated: "生成时间", continued: "续", noFields: "无字段", noSections: "此对象没有任何部分。", section: "第 {n} 部分", untitled: "无标题", yes: "是", no: "否", imageUnavailable: "图片不可用", signature: "数字签名" },
  "zh-Hant": { objectType: "物件類型", target: "目標", page: "第 {n} 頁，共 {total} 頁", instance: "執行個體", generated: "產生時間", continued: "續", noFields: "無欄位", noSections: "此物件沒有任何區段。", section: "第 {n} 區段", untitled: "無標題", yes: "是", no: "否", imageUnavailable: "無法顯示圖片", signature: "數位簽章" },
};

/** The languages the document's words are translated into (BCP 47; Chinese by script). */
export const WORD_LANGUAGES = Object.keys(TABLES);

/** A template with its "{name}" placeholders replaced (one left as it is when `values` lacks it). */
export const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));

const cache = new Map<string, Words>();

/** The translated language of a locale: its language (Chinese: by script, Traditional for TW/HK/MO), else "en". */
export function wordsLanguage(locale: string): string {
  try {
    const tag = new Intl.Locale(locale).maximize();
    const candidate = tag.language === "zh" ? `zh-${tag.script === "Hant" ? "Hant" : "Hans"}` : tag.language;
    return candidate in TABLES ? candidate : "en";
  } catch {
    return "en"; // an invalid tag
  }
}

/** The words of a locale (see wordsLanguage). */
export function wordsFor(locale: string): Words {
  let words = cache.get(locale);
  if (words) return words;
  const t = TABLES[wordsLanguage(locale)];
  words = {
    ...t,
    page: (n, total) => fill(t.page, { n, total }),
    footer: (id, generated) => `${t.instance} ${id} \u00b7 ${t.generated} ${generated}`,
    continued: (label) => `${label} (${t.continued})`,
    section: (n) => fill(t.section, { n }),
  };
  if (cache.size < 200) cache.set(locale, words);
  return words;
}
